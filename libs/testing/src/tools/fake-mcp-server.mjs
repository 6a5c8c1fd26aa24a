// A tiny MCP server over stdio (newline-delimited JSON-RPC), for what the real servers on npm will
// not do on demand. Mode (argv[2]):
//   silent-list  answers initialize, never answers tools/list;
//   changing     `add_tool` adds a tool and sends notifications/tools/list_changed;
//   browser      a stateful server, as a browser is: `navigate {url}` (not marked read-only) opens a
//                page that lives only as long as this process, `where` (read-only) says which.
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'changing';
const tools =
  mode === 'browser'
    ? [
        {
          name: 'navigate',
          description: 'Opens a page',
          inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
        },
        {
          name: 'where',
          description: 'The page open now',
          inputSchema: { type: 'object', properties: { as: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
      ]
    : [
        {
          name: 'add_tool',
          description: 'Adds a tool named by `name` and says the list changed',
          inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      ];
let page = 'about:blank';

function browserCall(id, name, args) {
  if (name === 'navigate') page = args.url;
  send({ id, result: { content: [{ type: 'text', text: `Page URL: ${page}` }] } });
}

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      send({
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: `fake-${mode}`, version: '1.0.0' },
        },
      });
      return;
    case 'tools/list':
      if (mode === 'silent-list') return;
      send({ id: message.id, result: { tools } });
      return;
    case 'tools/call': {
      if (mode === 'browser')
        return browserCall(message.id, message.params.name, message.params.arguments ?? {});
      const name = message.params.arguments?.name ?? 'extra';
      tools.push({
        name,
        description: `Added at run time`,
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      });
      send({ id: message.id, result: { content: [{ type: 'text', text: `added ${name}` }] } });
      send({ method: 'notifications/tools/list_changed' });
      return;
    }
    default:
      send({ id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
});
