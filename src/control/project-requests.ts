import type { PersonActor } from "../auth/person-token";
import type { KeyMode } from "../auth/source-key";
import type { Key, KeyInput, Project, Source, SourceInput } from "../contract/control";
import { decodeCursor } from "../http/cursor";
import { type Outcome, Problem } from "../http/problem";
import type { IdempotencyRequest } from "../idempotency";
import { createKey, issueSecret, listKeys, requireKey, revokeKey, rotateKey } from "./keys";
import { createProject, listProjects, requireProject } from "./projects";
import { tenantQuotas } from "./quotas";
import type { ControlRequests, Page, PageRequest } from "./requests";
import { insertSource, listSources, requireSource, sourceView } from "./sources";
import { insertSpace, listSpaces, requireSpace, type SpaceRow, type SpaceView, spaceView, tenantSpaces } from "./spaces";

const keyTargets = (key: Key) =>
  [
    { type: "key", id: key.key_id },
    { type: "source", id: key.source_id },
  ] as const;

/**
 * A key's space is pushed before the answer, a replayed one too: a retry after a push that failed
 * answers once the space has the key.
 */
function pushKeySpace(control: ControlRequests, actor: PersonActor, key: Key): Promise<void> {
  return control.push([requireSpace(control.db, actor.tenantId, key.space_id)]);
}

/**
 * A new space admits nothing, and a new source's keys do not exist, until their records arrive:
 * so the creation answers even when the push fails, leaving it owed to the alarm (a retry without
 * an `Idempotency-Key` would make a second source, or be `409` for the space's name).
 */
async function pushedOrOwed(control: ControlRequests, spaces: readonly SpaceRow[]): Promise<void> {
  try {
    await control.push(spaces);
  } catch (error) {
    if (!(error instanceof Problem && error.code === "unavailable")) throw error;
  }
}

/**
 * A creation's write: with an `Idempotency-Key`, in one transaction with its kept answer, by the
 * rules of the key writes (`idempotent`); without one, in a transaction of its own.
 */
function createdOnce<T>(
  control: ControlRequests,
  actor: PersonActor,
  idempotency: IdempotencyRequest | null,
  write: () => T,
): T | Promise<T> {
  return idempotency ? control.idempotent(actor, idempotency, write) : control.db.transaction(write);
}

/** Projects and what they hold: spaces, their sources and the sources' keys (docs/api/control.md); a change a space must know is pushed to it before the answer. */
export class ProjectRequests {
  #control: ControlRequests;

  constructor(control: ControlRequests) {
    this.#control = control;
  }

  createProject(
    actor: PersonActor,
    name: string,
    idempotency: IdempotencyRequest | null,
    requestId: string | null,
  ): Promise<Outcome<Project>> {
    const control = this.#control;
    const audit = {
      action: "project.create",
      requestId,
      targetsOf: (project: Project) => [{ type: "project", id: project.project_id }] as const,
    } as const;
    return control.recorded(actor, audit, () =>
      control.as(actor, () =>
        createdOnce(control, actor, idempotency, () => createProject(control.db, actor.tenantId, name, control.now())),
      ),
    );
  }

  listProjects(actor: PersonActor, page: PageRequest): Promise<Outcome<Page<Project>>> {
    const control = this.#control;
    return control.as(actor, () =>
      control.paged("projects", page.cursor, (cursor) =>
        listProjects(control.db, actor.tenantId, decodeCursor(cursor), page.limit),
      ),
    );
  }

  createSpace(
    actor: PersonActor,
    projectId: string,
    name: string,
    region: string,
    idempotency: IdempotencyRequest | null,
    requestId: string | null,
  ): Promise<Outcome<SpaceView>> {
    const control = this.#control;
    const audit = {
      action: "space.create",
      requestId,
      targets: [{ type: "project", id: projectId }],
      targetsOf: (space: SpaceView) => [{ type: "space", id: space.space_id }] as const,
    } as const;
    // A new space changes every space's share of the tenant's quotas.
    const pushed = (space: SpaceRow) =>
      tenantQuotas(control.db, actor.tenantId).length > 0 ? tenantSpaces(control.db, actor.tenantId) : [space];
    return control.recorded(
      actor,
      audit,
      () =>
        control.as(actor, () =>
          createdOnce(control, actor, idempotency, () => {
            const project = requireProject(control.db, actor.tenantId, projectId);
            const space = insertSpace(control.db, project, name, region, control.now());
            control.owe(pushed(space));
            return spaceView(space);
          }),
        ),
      (view) => pushedOrOwed(control, pushed(requireSpace(control.db, actor.tenantId, view.space_id))),
    );
  }

  listSpaces(actor: PersonActor, projectId: string, page: PageRequest): Promise<Outcome<Page<SpaceView>>> {
    const control = this.#control;
    return control.as(actor, () => {
      requireProject(control.db, actor.tenantId, projectId);
      return control.paged("spaces", page.cursor, (cursor) =>
        listSpaces(control.db, projectId, decodeCursor(cursor), page.limit),
      );
    });
  }

  createSource(
    actor: PersonActor,
    spaceId: string,
    input: SourceInput,
    idempotency: IdempotencyRequest | null,
    requestId: string | null,
  ): Promise<Outcome<Source>> {
    const control = this.#control;
    const audit = {
      action: "source.create",
      requestId,
      targets: [{ type: "space", id: spaceId }],
      targetsOf: (source: Source) => [{ type: "source", id: source.source_id }] as const,
    } as const;
    return control.recorded(
      actor,
      audit,
      () =>
        control.as(actor, () =>
          createdOnce(control, actor, idempotency, () => {
            const space = requireSpace(control.db, actor.tenantId, spaceId);
            control.owe([space]);
            return sourceView(insertSource(control.db, space, input, control.now()));
          }),
        ),
      () => pushedOrOwed(control, [requireSpace(control.db, actor.tenantId, spaceId)]),
    );
  }

  listSources(actor: PersonActor, spaceId: string, page: PageRequest): Promise<Outcome<Page<Source>>> {
    const control = this.#control;
    return control.as(actor, () => {
      requireSpace(control.db, actor.tenantId, spaceId);
      return control.paged("sources", page.cursor, (cursor) =>
        listSources(control.db, spaceId, decodeCursor(cursor), page.limit),
      );
    });
  }

  createKey(
    actor: PersonActor,
    sourceId: string,
    input: KeyInput,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<Key>> {
    const control = this.#control;
    const audit = {
      action: "key.create",
      requestId,
      targets: [{ type: "source", id: sourceId }],
      targetsOf: keyTargets,
    } as const;
    return control.recorded(
      actor,
      audit,
      () =>
        control.as(actor, async () => {
          const source = requireSource(control.db, actor.tenantId, sourceId);
          const space = requireSpace(control.db, actor.tenantId, source.spaceId);
          const secret = await issueSecret(await control.keyIssuer(), space, input.mode);
          return control.idempotent(actor, idempotency, () => {
            control.owe([space]);
            return createKey(control.db, secret, source, space, input, control.now());
          });
        }),
      (key) => pushKeySpace(control, actor, key),
    );
  }

  listKeys(actor: PersonActor, sourceId: string, page: PageRequest): Promise<Outcome<Page<Key>>> {
    const control = this.#control;
    return control.as(actor, () => {
      requireSource(control.db, actor.tenantId, sourceId);
      return control.paged("keys", page.cursor, (cursor) => listKeys(control.db, sourceId, cursor, page.limit, control.now()));
    });
  }

  rotateKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null): Promise<Outcome<Key>> {
    const control = this.#control;
    const audit = { action: "key.rotate", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return control.recorded(
      actor,
      audit,
      () =>
        control.as(actor, async () => {
          const row = requireKey(control.db, actor.tenantId, keyId);
          const space = requireSpace(control.db, actor.tenantId, row.spaceId);
          const secret = await issueSecret(await control.keyIssuer(), space, row.mode as KeyMode, row.keyId);
          return control.idempotent(actor, idempotency, () => {
            control.owe([space]);
            // Read again: the key may have been revoked while the secret was issued.
            return rotateKey(control.db, secret, requireKey(control.db, actor.tenantId, keyId), control.now());
          });
        }),
      (key) => pushKeySpace(control, actor, key),
    );
  }

  revokeKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null): Promise<Outcome<Key>> {
    const control = this.#control;
    const audit = { action: "key.revoke", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return control.recorded(
      actor,
      audit,
      () =>
        control.as(actor, () =>
          control.idempotent(actor, idempotency, () => {
            const row = requireKey(control.db, actor.tenantId, keyId);
            control.owe([requireSpace(control.db, actor.tenantId, row.spaceId)]);
            return revokeKey(control.db, row, control.now());
          }),
        ),
      (key) => pushKeySpace(control, actor, key),
    );
  }
}
