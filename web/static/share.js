// Share links: the file travels in the URL fragment.
//
//   #code=BASE64URL[&node=N]     BASE64URL: RFC 4648 §5 of the UTF-8 text, no padding
//   #example=FOLDER/FILE.loop[&node=N]
//
// Nothing here touches the page: parseFragment returns what to open, or an
// error message for the page to show.

/** The largest file a link may carry (decoded UTF-8 bytes). */
export const MAX_SHARED_BYTES = 1024 * 1024;

/** The Node profiles the page offers (docs/language.md §3, `node N`). */
export const NODE_PROFILES = ['26', '24', '22', '20', '10'];

/** Bytes → base64url without padding. */
export function bytesToBase64url(bytes) {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url (padding optional) → bytes; throws an Error with a message for a reader. */
export function base64urlToBytes(text) {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
    throw new Error('the link’s code is not base64url (only A–Z, a–z, 0–9, “-” and “_” may appear)');
  }
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) {
    throw new Error('the link’s code is cut short (its length is not one base64url can have)');
  }
  const padded = bare.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice(0, (4 - (bare.length % 4)) % 4);
  let binary;
  try {
    binary = atob(padded);
  } catch {
    throw new Error('the link’s code is not valid base64url');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A text → the `code` value of a share link. */
export function encodeSource(text) {
  return bytesToBase64url(new TextEncoder().encode(text));
}

/** The `code` value of a share link → the text; throws an Error with a message for a reader. */
export function decodeSource(code) {
  // Four base64 characters carry three bytes: refuse an oversized link before decoding it.
  if (Math.floor((code.replace(/=+$/, '').length * 3) / 4) > MAX_SHARED_BYTES) {
    throw new Error(`the shared file is larger than ${MAX_SHARED_BYTES / 1024 / 1024} MiB, the most a link may carry`);
  }
  const bytes = base64urlToBytes(code);
  if (bytes.length > MAX_SHARED_BYTES) {
    throw new Error(`the shared file is larger than ${MAX_SHARED_BYTES / 1024 / 1024} MiB, the most a link may carry`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('the link’s code does not decode to UTF-8 text');
  }
}

/** `#a=1&b=2` → Map; a key without `=` gets the value ''. */
function fragmentParams(hash) {
  const params = new Map();
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (body === '') return params;
  for (const part of body.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/**
 * What a fragment asks to open:
 * `{ kind: 'none' }`, `{ kind: 'code', source, node }`, `{ kind: 'example', path, node }`,
 * or `{ kind: 'error', message, node }`. `node` is a profile or null.
 */
export function parseFragment(hash) {
  const params = fragmentParams(hash);
  let node = null;
  let nodeError = null;
  if (params.has('node')) {
    const value = params.get('node');
    if (NODE_PROFILES.includes(value)) node = value;
    else nodeError = `the link asks for Node “${value}”; the profiles are ${NODE_PROFILES.join(', ')}`;
  }
  if (params.has('code')) {
    try {
      const source = decodeSource(params.get('code'));
      return nodeError ? { kind: 'error', message: nodeError, node, source } : { kind: 'code', source, node };
    } catch (err) {
      return { kind: 'error', message: `This link’s file cannot be opened: ${err.message}.`, node };
    }
  }
  if (params.has('example')) {
    let path;
    try {
      path = decodeURIComponent(params.get('example'));
    } catch {
      return { kind: 'error', message: 'This link names an example whose path is not valid percent-encoding.', node };
    }
    return { kind: 'example', path, node, nodeError };
  }
  if (nodeError) return { kind: 'error', message: nodeError, node };
  return { kind: 'none', node };
}

/** The fragment (with `#`) of a share link for this text and profile (null: the file's own). */
export function buildFragment(source, node) {
  let hash = '#code=' + encodeSource(source);
  if (node) hash += '&node=' + node;
  return hash;
}
