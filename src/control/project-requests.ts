import type { PersonActor } from "../auth/person-token";
import type { Key, KeyInput, Project, Source, SourceInput } from "../contract/control";
import { decodeCursor } from "../http/cursor";
import type { Outcome } from "../http/problem";
import type { IdempotencyRequest } from "../idempotency";
import { createKey, requireKey, revokeKey, rotateKey } from "./keys";
import { createProject, listProjects, requireProject } from "./projects";
import { tenantQuotas } from "./quotas";
import type { ControlRequests, Page, PageRequest } from "./requests";
import { insertSource, listSources, requireSource, sourceView } from "./sources";
import { insertSpace, listSpaces, requireSpace, type SpaceView, spaceView } from "./spaces";

const keyTargets = (key: Key) =>
  [
    { type: "key", id: key.key_id },
    { type: "source", id: key.source_id },
  ] as const;

/** Projects and what they hold: spaces, their sources and the sources' keys (docs/api/control.md); a change a space must know is pushed to it before the answer. */
export class ProjectRequests {
  #control: ControlRequests;

  constructor(control: ControlRequests) {
    this.#control = control;
  }

  createProject(actor: PersonActor, name: string, requestId: string | null): Promise<Outcome<Project>> {
    const control = this.#control;
    const audit = {
      action: "project.create",
      requestId,
      targetsOf: (project: Project) => [{ type: "project", id: project.project_id }] as const,
    } as const;
    return control.recorded(actor, audit, () =>
      control.as(actor, () => createProject(control.db, actor.tenantId, name, control.now())),
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
    requestId: string | null,
  ): Promise<Outcome<SpaceView>> {
    const control = this.#control;
    const audit = {
      action: "space.create",
      requestId,
      targets: [{ type: "project", id: projectId }],
      targetsOf: (space: SpaceView) => [{ type: "space", id: space.space_id }] as const,
    } as const;
    return control.recorded(actor, audit, () =>
      control.as(actor, async () => {
        const project = requireProject(control.db, actor.tenantId, projectId);
        const space = insertSpace(control.db, project, name, region, control.now());
        // A new space changes every space's share of the tenant's quotas.
        if (tenantQuotas(control.db, actor.tenantId).length > 0) await control.pushTenant(actor.tenantId);
        else await control.push(space);
        return spaceView(space);
      }),
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

  createSource(actor: PersonActor, spaceId: string, input: SourceInput, requestId: string | null): Promise<Outcome<Source>> {
    const control = this.#control;
    const audit = {
      action: "source.create",
      requestId,
      targets: [{ type: "space", id: spaceId }],
      targetsOf: (source: Source) => [{ type: "source", id: source.source_id }] as const,
    } as const;
    return control.recorded(actor, audit, () =>
      control.as(actor, async () => {
        const space = requireSpace(control.db, actor.tenantId, spaceId);
        const source = insertSource(control.db, space, input, control.now());
        await control.push(space);
        return sourceView(source);
      }),
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
    return control.recorded(actor, audit, () =>
      control.idempotent(actor, idempotency, async () => {
        const source = requireSource(control.db, actor.tenantId, sourceId);
        const space = requireSpace(control.db, actor.tenantId, source.spaceId);
        const key = await createKey(control.db, await control.keyIssuer(), source, space, input, control.now());
        await control.push(space);
        return key;
      }),
    );
  }

  rotateKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null): Promise<Outcome<Key>> {
    const control = this.#control;
    const audit = { action: "key.rotate", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return control.recorded(actor, audit, () =>
      control.idempotent(actor, idempotency, async () => {
        const row = requireKey(control.db, actor.tenantId, keyId);
        const space = requireSpace(control.db, actor.tenantId, row.spaceId);
        const key = await rotateKey(control.db, await control.keyIssuer(), row, space, control.now());
        await control.push(space);
        return key;
      }),
    );
  }

  revokeKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null): Promise<Outcome<Key>> {
    const control = this.#control;
    const audit = { action: "key.revoke", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return control.recorded(actor, audit, () =>
      control.idempotent(actor, idempotency, async () => {
        const row = requireKey(control.db, actor.tenantId, keyId);
        const space = requireSpace(control.db, actor.tenantId, row.spaceId);
        const key = revokeKey(control.db, row, control.now());
        await control.push(space);
        return key;
      }),
    );
  }
}
