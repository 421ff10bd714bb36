// The person this browser is: a pseudonymous id and its token, made by the gateway on the first visit
// and kept here only ({person_id, token} under one key), as the sessions are. The sessions made with the
// token are the person's, and Jipsa remembers what they said in them (memory.js shows it).
//
// A stored token the gateway refuses (401: another server, or its database was reset) is dropped and a
// new person made in its place; a gateway that cannot make one now leaves the page working without a
// person, its sessions remembered by nobody, and is asked again the next time.
import * as api from "./api.js";

const KEY = "jipsa.person.v1";
let making = null; // the one request for a new person in flight, shared by everyone who needs it
let visiting = null; // the person of this visit, for a browser whose storage refuses to keep one

function stored() {
  try {
    const person = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (person && typeof person.person_id === "string" && typeof person.token === "string") return person;
  } catch {
    // Unreadable or disabled storage: the person of this visit, if any.
  }
  return visiting;
}

function keep(person) {
  visiting = { person_id: person.person_id, token: person.token };
  try {
    localStorage.setItem(KEY, JSON.stringify(visiting));
  } catch {
    // Storage full or disabled (private mode): the person lasts for this visit.
  }
}

function drop(token) {
  if (stored()?.token !== token) return; // already replaced by another caller
  visiting = null;
  try {
    localStorage.removeItem(KEY);
  } catch {
    // Disabled storage: nothing was kept there.
  }
}

// The person, made now if this browser has none.
export async function ensurePerson() {
  const known = stored();
  if (known) return known;
  making ??= api.createPerson().then((created) => {
    keep(created);
    return created;
  }).finally(() => { making = null; });
  return making;
}

// `call(token)` with the person's token; a refused token is replaced once by a new person's.
export async function asPerson(call) {
  const person = await ensurePerson();
  try {
    return await call(person.token);
  } catch (error) {
    if (!(error instanceof api.ApiError && error.status === 401)) throw error;
    drop(person.token);
    return call((await ensurePerson()).token);
  }
}
