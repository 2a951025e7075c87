/** The few HTML answers of the auth routes: plain, escaped, no script. Internal. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
  return new Response(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' },
  });
}

export function callbackErrorPage(code: string, message: string, loginPath: string): Response {
  return page(
    400,
    'Sign-in failed',
    `<p><strong>${escapeHtml(code)}</strong>: ${escapeHtml(message)}</p>\n<p><a href="${escapeHtml(loginPath)}">Try again</a></p>`,
  );
}

export function logoutConfirmPage(logoutPath: string, csrfToken: string): Response {
  return page(
    200,
    'Sign out?',
    `<form method="post" action="${escapeHtml(logoutPath)}"><input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">` +
      '<button type="submit">Sign out</button></form>',
  );
}

export function refusedPage(message: string): Response {
  return page(403, 'Sign-out refused', `<p>${escapeHtml(message)}</p>`);
}

export function unavailablePage(message: string): Response {
  return page(503, 'Temporarily unavailable', `<p>${escapeHtml(message)}</p>`);
}
