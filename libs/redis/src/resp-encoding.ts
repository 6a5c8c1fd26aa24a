/** Byte lengths of the arguments being encoded: reused from call to call, grown when a call has more. */
let lengths = new Int32Array(1024);

/**
 * A command in the Redis protocol (RESP: an array of bulk strings), written into one Buffer in one
 * pass: the bytes ioredis' own encoding sends for the same strings. ioredis builds the command as
 * a string by concatenation, a few string objects per argument, which the socket then flattens and
 * copies to UTF-8 again; for the group commit of steps (a few thousand arguments a call) that was
 * the Worker's largest source of garbage (docs/ARCHITECTURE.md, "Throughput: what one step costs").
 * The Buffer is written to the socket as it is.
 */
export function encodeCommand(name: string, args: readonly string[]): Buffer {
  if (lengths.length < args.length) lengths = new Int32Array(args.length * 2);
  const header = `*${args.length + 1}\r\n$${Buffer.byteLength(name)}\r\n${name}\r\n`;
  let size = Buffer.byteLength(header);
  for (let i = 0; i < args.length; i++) {
    const length = Buffer.byteLength(args[i]);
    lengths[i] = length;
    // $<length>\r\n<bytes>\r\n
    size += 1 + decimalDigits(length) + 2 + length + 2;
  }
  const buffer = Buffer.allocUnsafe(size);
  let at = buffer.write(header, 0, 'utf8');
  for (let i = 0; i < args.length; i++) {
    const length = lengths[i];
    buffer[at++] = 0x24; // $
    at = writeDecimal(buffer, at, length);
    buffer[at++] = 0x0d;
    buffer[at++] = 0x0a;
    if (length > 0) at += buffer.write(args[i], at, length, 'utf8');
    buffer[at++] = 0x0d;
    buffer[at++] = 0x0a;
  }
  return buffer;
}

function decimalDigits(value: number): number {
  let digits = 1;
  while (value >= 10) {
    value = Math.floor(value / 10);
    digits++;
  }
  return digits;
}

function writeDecimal(buffer: Buffer, at: number, value: number): number {
  const end = at + decimalDigits(value);
  for (let i = end - 1; i >= at; i--) {
    buffer[i] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  }
  return end;
}
