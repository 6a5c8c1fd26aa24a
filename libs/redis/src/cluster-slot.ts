/** Redis Cluster's key → slot mapping (CRC16/XMODEM of the hash tag, mod 16384). */
function crc16(input: Buffer): number {
  let crc = 0;
  for (const byte of input) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(Buffer.from(key.slice(open + 1, close))) % 16384;
  }
  return crc16(Buffer.from(key)) % 16384;
}
