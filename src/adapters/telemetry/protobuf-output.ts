/** Protocol Buffers wire types (the low three bits of a field's tag). */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** UTF-8 takes at most 3 bytes per UTF-16 code unit: a string of at most this many has a one-byte length (126 bytes). */
const ONE_BYTE_LENGTH_CHARACTERS = 42;

/**
 * A Protocol Buffers message written in one pass into a growing buffer, with no pass before
 * it to measure. An embedded message's length is written in front of it once it is known:
 * one byte is kept for it, and a message of 128 bytes or more (a span, a batch) moves up by
 * the extra bytes. Only what OTLP's span export needs (otlp-span-encoding.ts).
 */
export class ProtobufOutput {
  #buffer: Buffer;
  #position = 0;

  constructor(expectedBytes: number) {
    // Not zeroed: every byte before the position is written before `finish` hands it out,
    // and none after it ever leaves (an embedded message's length byte included).
    this.#buffer = Buffer.allocUnsafe(Math.max(expectedBytes, 64));
  }

  tag(field: number, wireType: number): void {
    this.varint32(field * 8 + wireType);
  }

  /** A varint of 0 to 2^32 - 1 (lengths, counts, enums, tags): most are one byte. */
  varint32(value: number): void {
    if (value >= 0 && value < 0x80) {
      this.#reserve(1);
      this.#buffer[this.#position++] = value;
      return;
    }
    this.#reserve(5);
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.#buffer[this.#position++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#buffer[this.#position++] = rest;
  }

  /** An int64 varint of an integer within int64's range (a negative one in two's complement, ten bytes). */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) return this.varint32(value);
    let [low, high] = splitUint64(Math.abs(value));
    if (value < 0) [low, high] = negated(low, high);
    this.#reserve(10);
    while (high > 0 || low > 0x7f) {
      this.#buffer[this.#position++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    this.#buffer[this.#position++] = low;
  }

  fixed32(value: number): void {
    this.#reserve(4);
    this.#uint32(value);
  }

  fixed64(low: number, high: number): void {
    this.#reserve(8);
    this.#uint32(low);
    this.#uint32(high);
  }

  double(value: number): void {
    this.#reserve(8);
    this.#position = this.#buffer.writeDoubleLE(value, this.#position);
  }

  /**
   * A length-delimited UTF-8 string. Most are short ASCII (names, attribute keys, routes):
   * those are copied here a code unit at a time, which is quicker than a call into Node's
   * UTF-8 writer; any other string goes to that writer.
   */
  string(value: string): void {
    const length = value.length;
    if (length <= ONE_BYTE_LENGTH_CHARACTERS) {
      this.#reserve(1 + length * 3);
      const buffer = this.#buffer;
      const start = this.#position + 1;
      let index = 0;
      for (; index < length; index++) {
        const code = value.charCodeAt(index);
        if (code > 0x7f) break;
        buffer[start + index] = code;
      }
      const written = index === length ? length : buffer.write(value, start, 'utf8');
      buffer[this.#position] = written;
      this.#position = start + written;
      return;
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    this.varint32(bytes);
    this.#reserve(bytes);
    this.#position += this.#buffer.write(value, this.#position, 'utf8');
  }

  /**
   * Length-delimited bytes given in hex (trace and span ids, which the SDK and the trace
   * context's parser keep valid), decoded here: quicker than a call into Node's hex writer.
   */
  hexBytes(hex: string): void {
    const length = hex.length >>> 1;
    this.varint32(length);
    this.#reserve(length);
    const buffer = this.#buffer;
    const start = this.#position;
    for (let index = 0; index < length; index++) {
      buffer[start + index] =
        (HEX_DIGITS[hex.charCodeAt(2 * index)]! << 4) | HEX_DIGITS[hex.charCodeAt(2 * index + 1)]!;
    }
    this.#position = start + length;
  }

  bytes(value: Uint8Array): void {
    this.varint32(value.length);
    this.#reserve(value.length);
    this.#buffer.set(value, this.#position);
    this.#position += value.length;
  }

  /** Starts an embedded message (after its tag): returns where its length goes, for `endMessage`. */
  beginMessage(): number {
    this.#reserve(1);
    return this.#position++;
  }

  endMessage(lengthAt: number): void {
    const length = this.#position - lengthAt - 1;
    if (length < 0x80) {
      this.#buffer[lengthAt] = length;
      return;
    }
    const lengthBytes = varintSize(length);
    this.#reserve(lengthBytes - 1);
    this.#buffer.copyWithin(lengthAt + lengthBytes, lengthAt + 1, this.#position);
    this.#position += lengthBytes - 1;
    const end = this.#position;
    this.#position = lengthAt;
    this.varint32(length);
    this.#position = end;
  }

  /** The message written: a view of this output's own buffer, which it no longer writes to. */
  finish(): Uint8Array {
    return this.#buffer.subarray(0, this.#position);
  }

  /** Four bytes, little-endian, into room already reserved (Buffer's writeUInt32LE checks its arguments first). */
  #uint32(value: number): void {
    const buffer = this.#buffer;
    const at = this.#position;
    buffer[at] = value;
    buffer[at + 1] = value >>> 8;
    buffer[at + 2] = value >>> 16;
    buffer[at + 3] = value >>> 24;
    this.#position = at + 4;
  }

  #reserve(bytes: number): void {
    if (this.#position + bytes <= this.#buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#position + bytes));
    this.#buffer.copy(larger, 0, 0, this.#position);
    this.#buffer = larger;
  }
}

/** Each character code's value as a hex digit (0 to 9, a to f, A to F; any other is 0). */
const HEX_DIGITS = new Uint8Array(128);
for (let digit = 0; digit < 16; digit++) {
  HEX_DIGITS['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_DIGITS['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) size++;
  return size;
}

/** A non-negative integer below 2^64 as its low and high 32 bits. */
function splitUint64(value: number): [number, number] {
  return [(value % 0x1_0000_0000) >>> 0, Math.floor(value / 0x1_0000_0000) >>> 0];
}

/** Two's complement of a 64-bit value given as its low and high 32 bits. */
function negated(low: number, high: number): [number, number] {
  const negatedLow = (~low + 1) >>> 0;
  return [negatedLow, (~high + (negatedLow === 0 ? 1 : 0)) >>> 0];
}
