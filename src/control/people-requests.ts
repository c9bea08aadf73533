import { recordOutcome } from "../audit/log";
import { hashPassword } from "../auth/password";
import type { PersonActor, PersonPrincipal } from "../auth/person-token";
import { keyDigest } from "../auth/source-key";
import type { Person, PersonInput, PersonUpdate } from "../contract/control";
import { decodeCursor } from "../http/cursor";
import { type Outcome, outcomeOf } from "../http/problem";
import {
  insertPerson,
  listPeople,
  login,
  normalizedEmail,
  personByEmail,
  personView,
  removePerson,
  updatePerson,
} from "./people";
import type { ControlRequests, Page, PageRequest } from "./requests";
import { cutToken } from "./token-cuts";

const personTarget = (id: string) => ({ type: "person", id }) as const;

/** Logging in and out, and the tenant's people (docs/api/control.md). */
export class PeopleRequests {
  #control: ControlRequests;

  constructor(control: ControlRequests) {
    this.#control = control;
  }

  /**
   * A login is audited under the person whose e-mail it names (`auth.login`, or
   * `auth.login_refused` with the refusal's code); one naming no person is not: it has no tenant,
   * and the e-mail is personal data.
   */
  async login(
    email: string,
    password: string,
    requestId: string | null,
  ): Promise<Outcome<{ person: PersonPrincipal; generation: number }>> {
    const control = this.#control;
    const { db, sql, now } = control;
    const outcome = await outcomeOf(async () => {
      const failureKey = await keyDigest((await control.keyIssuer()).pepper, `login:${normalizedEmail(email)}`);
      return login(db, { email, password, failureKey }, now());
    });
    const person = outcome.ok ? outcome.value.person : personByEmail(db, email);
    if (person) {
      const action = outcome.ok ? "auth.login" : "auth.login_refused";
      const actor = { kind: "person", id: person.personId } as const;
      const request = { actor, action, requestId, targets: [{ type: "person", id: person.personId }], named: true } as const;
      recordOutcome(sql, request, outcome, now(), person.tenantId);
    }
    return outcome;
  }

  /** Ends the token the request came with, in every space of the tenant, before it answers. */
  logout(actor: PersonActor, requestId: string | null): Promise<Outcome<null>> {
    const control = this.#control;
    return control.recorded(
      actor,
      { action: "auth.logout", requestId, targets: [personTarget(actor.personId)] },
      () =>
        control.as(actor, () =>
          control.db.transaction(() => {
            cutToken(control.db, actor);
            control.oweTenant(actor.tenantId);
            return null;
          }),
        ),
      () => control.pushTenant(actor.tenantId),
    );
  }

  me(actor: PersonActor): Promise<Outcome<Person>> {
    return this.#control.as(actor, (person) => personView(person));
  }

  createPerson(actor: PersonActor, input: PersonInput, requestId: string | null): Promise<Outcome<Person>> {
    const control = this.#control;
    const audit = {
      action: "person.create",
      requestId,
      targetsOf: (person: Person) => [personTarget(person.person_id)],
    } as const;
    return control.recorded(actor, audit, () =>
      control.as(actor, async () => {
        const hash = await hashPassword(input.password);
        return personView(insertPerson(control.db, actor.tenantId, input, hash, control.now()));
      }),
    );
  }

  /** A change of roles or bindings cuts the person's tokens in every space of the tenant before it answers. */
  updatePerson(actor: PersonActor, personId: string, input: PersonUpdate, requestId: string | null): Promise<Outcome<Person>> {
    const control = this.#control;
    return control.recorded(
      actor,
      { action: "person.update", requestId, targets: [personTarget(personId)] },
      () =>
        control.as(actor, () =>
          control.db.transaction(() => {
            const person = updatePerson(control.db, actor.tenantId, personId, input, control.now());
            control.oweTenant(actor.tenantId);
            return personView(person);
          }),
        ),
      () => control.pushTenant(actor.tenantId),
    );
  }

  removePerson(actor: PersonActor, personId: string, requestId: string | null): Promise<Outcome<null>> {
    const control = this.#control;
    return control.recorded(
      actor,
      { action: "person.remove", requestId, targets: [personTarget(personId)] },
      () =>
        control.as(actor, () =>
          control.db.transaction(() => {
            removePerson(control.db, actor.tenantId, personId, control.now());
            control.oweTenant(actor.tenantId);
            return null;
          }),
        ),
      () => control.pushTenant(actor.tenantId),
    );
  }

  listPeople(actor: PersonActor, page: PageRequest): Promise<Outcome<Page<Person>>> {
    const control = this.#control;
    return control.as(actor, () =>
      control.paged("people", page.cursor, (cursor) => listPeople(control.db, actor.tenantId, decodeCursor(cursor), page.limit)),
    );
  }
}
