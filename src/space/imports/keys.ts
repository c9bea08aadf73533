/** Where an import's file is kept while it is read (DESIGN §1). */
export const importKey = (space: string, importId: string) => `spaces/${space}/imports/${importId}`;
