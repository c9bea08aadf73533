/**
 * Common English nicknames and the given name they stand for, so that "Bill" and "William"
 * compare as similar names although no string metric sees it. Short on purpose: the names a
 * nickname list gets wrong cost precision, and Jaro-Winkler covers most spellings.
 */
const GROUPS: readonly (readonly string[])[] = [
  ["william", "bill", "billy", "will", "willy", "liam"],
  ["robert", "bob", "bobby", "rob", "robbie", "bert"],
  ["richard", "rick", "ricky", "dick", "rich"],
  ["james", "jim", "jimmy", "jamie"],
  ["john", "jack", "johnny", "jon"],
  ["jonathan", "jon", "jonny"],
  ["michael", "mike", "mick", "mickey"],
  ["thomas", "tom", "tommy"],
  ["joseph", "joe", "joey"],
  ["charles", "charlie", "chuck", "chas"],
  ["edward", "ed", "eddie", "ted", "ned"],
  ["anthony", "tony"],
  ["christopher", "chris", "kit"],
  ["daniel", "dan", "danny"],
  ["david", "dave", "davy"],
  ["matthew", "matt"],
  ["andrew", "andy", "drew"],
  ["benjamin", "ben", "benny"],
  ["samuel", "sam", "sammy"],
  ["alexander", "alex", "sandy", "xander"],
  ["nicholas", "nick", "nicky"],
  ["stephen", "steve", "stevie"],
  ["steven", "steve", "stevie"],
  ["peter", "pete"],
  ["patrick", "pat", "paddy"],
  ["timothy", "tim", "timmy"],
  ["gregory", "greg"],
  ["kenneth", "ken", "kenny"],
  ["lawrence", "larry"],
  ["raymond", "ray"],
  ["ronald", "ron", "ronnie"],
  ["donald", "don", "donny"],
  ["gerald", "gerry", "jerry"],
  ["frederick", "fred", "freddie"],
  ["henry", "harry", "hank"],
  ["elizabeth", "liz", "lizzie", "beth", "betty", "eliza", "libby"],
  ["margaret", "maggie", "meg", "peggy", "marge"],
  ["katherine", "kate", "katie", "kathy", "kat"],
  ["catherine", "cathy", "kate", "cat"],
  ["jennifer", "jen", "jenny"],
  ["rebecca", "becky", "becca"],
  ["susan", "sue", "susie"],
  ["patricia", "pat", "patty", "trish"],
  ["deborah", "deb", "debbie"],
  ["victoria", "vicky", "tori"],
  ["jessica", "jess", "jessie"],
  ["samantha", "sam", "sammy"],
  ["alexandra", "alex", "sandra", "sandy"],
  ["christine", "chris", "chrissy", "tina"],
  ["barbara", "barb", "barbie"],
  ["dorothy", "dot", "dottie"],
  ["abigail", "abby"],
  ["jacqueline", "jackie"],
  ["kimberly", "kim"],
  ["pamela", "pam"],
  ["theresa", "terri", "tess"],
  ["madeline", "maddie"],
  ["isabella", "bella", "izzy"],
  ["josephine", "jo", "josie"],
  ["joanne", "jo"],
];

const CANONICAL = new Map<string, Set<string>>();
for (const group of GROUPS) {
  const formal = group[0] as string;
  for (const name of group) {
    const set = CANONICAL.get(name) ?? new Set<string>();
    set.add(formal);
    CANONICAL.set(name, set);
  }
}

/** Whether two given names (plain words) are a name and its nickname, or two nicknames of one name. */
export function nicknames(a: string, b: string): boolean {
  const ofA = CANONICAL.get(a);
  const ofB = CANONICAL.get(b);
  if (!ofA || !ofB) return false;
  for (const formal of ofA) if (ofB.has(formal)) return true;
  return false;
}
