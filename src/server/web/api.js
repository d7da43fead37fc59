// Talking to the server: JSON over HTTP with the API's errors turned into exceptions, and
// the member logged in (if any), whose CSRF token goes with every change asked for.

export const session = { user: null };

/** The error codes that mean the server is in trouble (its database fails), whatever was asked. */
const TROUBLE = new Set(["storage", "unavailable"]);

/** Who is logged in (`session.user`: `{name, csrf}` or null). */
export async function loadSession() {
  try {
    const { user } = await api("GET", "/api/me");
    session.user = user;
  } catch {
    session.user = null;
  }
  return session.user;
}

export async function api(method, path, { body, secret, signal } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (secret) headers.Authorization = `Bearer ${secret}`;
  if (session.user && method !== "GET") headers["X-CSRF-Token"] = session.user.csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (failure) {
    // Called off by the page itself (it wants another answer now): not the network.
    if (signal && signal.aborted) throw failure;
    // The browser's own words ("Failed to fetch") say nothing to a player.
    const error = new Error("The server cannot be reached just now: check the connection and try again.");
    error.offline = true;
    throw error;
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.details = data && data.error;
    error.status = response.status;
    error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    // The server's own trouble (its database failing), not the request's fault.
    error.trouble = Boolean(data && data.error && TROUBLE.has(data.error.code));
    throw error;
  }
  return data;
}

