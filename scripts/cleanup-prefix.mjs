// Deletes every Redis key under a prefix (the demo's and chaos runs' own keys).
import net from 'node:net';

const prefix = process.argv[2];
if (!prefix || prefix.length < 6) throw new Error('usage: cleanup-prefix.mjs <prefix>');
const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
// One Lua call: SCAN and UNLINK in batches, server-side.
const script = `local c='0' local n=0 repeat local r=redis.call('SCAN',c,'MATCH',ARGV[1],'COUNT',1000) c=r[1] for _,k in ipairs(r[2]) do redis.call('UNLINK',k) n=n+1 end until c=='0' return n`;
const command = ['EVAL', script, '0', `${prefix}*`];
socket.write(`*${command.length}\r\n${command.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
socket.on('data', () => socket.end());
