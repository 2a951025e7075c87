/**
 * The path of a request's URL without parsing it again: a `Request`'s `url` is already a
 * serialized absolute URL (the listener and the web `Request` both make it with `URL`), and
 * parsing it for the path on every request was a measurable share of a token request's CPU.
 */

/**
 * What `new URL(href).pathname` gives for a serialized http(s) URL, read off the string.
 *
 * @example
 * pathnameOf('http://127.0.0.1:4000/demo/oauth/token?x=1'); // '/demo/oauth/token'
 */
export function pathnameOf(href: string): string {
  const scheme = href.indexOf('://');
  // Not an http(s) URL as a Request serializes it: let URL say what its path is.
  if (scheme === -1 || !href.startsWith('http')) return new URL(href).pathname;
  const start = href.indexOf('/', scheme + 3);
  if (start === -1) return '/';
  let end = href.indexOf('?', start);
  if (end === -1) end = href.length;
  const hash = href.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  return href.slice(start, end);
}
