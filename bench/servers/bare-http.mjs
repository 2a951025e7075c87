// The platform ceiling: node:http answering every request with a fixed token-like JSON body.
import { createServer } from 'node:http';

const body = JSON.stringify({ access_token: 'fixed-access-token-value', token_type: 'bearer', expires_in: 3600, scope: 'api.read' });
const server = createServer((req, res) => {
  req.resume(); // read (and drop) the request body, as a real endpoint would
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    res.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
