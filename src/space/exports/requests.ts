import { actorOf } from "../../audit/log";
import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import { ExportInputSchema, type ExportRecord } from "../../contract/exports";
import { type BodyInput, parseJsonBody } from "../../http/body";
import { parseOrRefuse } from "../../http/issues";
import { type Outcome, outcomeOf, Problem } from "../../http/problem";
import { profileOfHandle } from "../identity/profile-view";
import { membersOf, rootOf } from "../identity/profiles";
import type { SpaceRequests } from "../requests";
import { requireLiveExport } from "./expiry";
import type { ExportJobs } from "./jobs";
import { downloadLink, openDownload } from "./links";
import { exportView, readExport, requireExport } from "./records";

/** The export routes of a space (docs/api/privacy.md#export). */
export class ExportRequests {
  #space: SpaceRequests;
  #jobs: ExportJobs;

  constructor(space: SpaceRequests, jobs: ExportJobs) {
    this.#space = space;
    this.#jobs = jobs;
  }

  /** `POST /v1/exports`: the subject's data as NDJSON in R2; complete in the answer when small, else written on by a timer. */
  createExport(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<ExportRecord>> {
    const space = this.#space;
    const audit = space.audit<ExportRecord>(credential, "export.create", requestId);
    audit.targetsOf = (record) => [
      { type: "export", id: record.export_id },
      { type: "profile", id: record.profile_id },
    ];
    return space.audited(audit, () =>
      space.admitted(
        credential,
        POLICIES.security,
        async () => {
          const input = parseOrRefuse(ExportInputSchema, parseJsonBody(body));
          const whole = { visibility: "whole", sources: null } as const;
          const rootId = input.handle
            ? profileOfHandle(space.sql, input.handle, whole)
            : rootOf(space.sql, input.profile_id ?? "")?.profileId;
          if (!rootId) throw new Problem("not_found", "no such profile");
          const subject = { space: space.spaceName(), rootId, members: membersOf(space.sql, rootId) };
          const { exportId } = await this.#jobs.start(subject, actorOf(credential).id);
          // Forget may have taken the subject while the request wrote: then the export is gone too.
          const row = requireExport(space.sql, exportId);
          return exportView(row, await downloadLink(space.env, space.sql, row, space.now()));
        },
        "write",
      ),
    );
  }

  /** `GET /v1/exports/{id}`: the status record, with a fresh download link once completed. */
  readExport(credential: PresentedCredential, exportId: string, requestId: string | null): Promise<Outcome<ExportRecord>> {
    const space = this.#space;
    const audit = space.audit<ExportRecord>(credential, "export.read", requestId, [{ type: "export", id: exportId }]);
    audit.targetsOf = (record) => [{ type: "profile", id: record.profile_id }];
    return space.audited(audit, () =>
      space.admitted(credential, POLICIES.security, async (_caller, now) => {
        const row = requireLiveExport(space.sql, exportId, now);
        return exportView(row, await downloadLink(space.env, space.sql, row, now));
      }),
    );
  }

  /**
   * The development download route: the link's token checked, the file's R2 key for the edge to
   * stream. It carries no credential, so the link is its own rate-limit bucket (`link:<export>`,
   * beside the space's); and only a link to an export the space holds is audited, since anyone
   * can type another id (and a row per typed id would fill the log).
   */
  openExportDownload(exportId: string, token: string, requestId: string | null): Promise<Outcome<{ objectKey: string }>> {
    const space = this.#space;
    const answer = () =>
      outcomeOf(() => {
        const now = space.now();
        space.limits.admit(space.replica(), `link:${exportId}`, "read", now);
        return openDownload(space.sql, exportId, token, space.spaceName(), now);
      });
    if (!readExport(space.sql, exportId)) return answer();
    const audit = { actor: { kind: "link", id: exportId }, action: "export.download", requestId, named: true } as const;
    return space.audited({ ...audit, targets: [{ type: "export", id: exportId }] }, answer);
  }
}
