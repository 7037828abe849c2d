/**
 * A PNG of at most 16 colours chosen in advance (4-bit indexed, https://www.w3.org/TR/png-3/),
 * written from RGBA pixels. The social cards' colours are known before they are drawn (the site's
 * four and their blends at the edges of text), so no palette need be searched for: sharp's palette
 * PNG (libimagequant) spends three quarters of a card's time doing that. Choosing the nearest of 16
 * given colours per pixel, and zlib for the rest, takes a fifth of it (`npm run bench:cards`).
 */
import { crc32, deflateSync } from "node:zlib";

export type Rgb = readonly [number, number, number];

/** Pixels as the nearest colours' indices, two to a byte, each row after PNG's filter byte (none). */
export class IndexedRows {
  readonly stride: number;
  private readonly nearest = new Map<number, number>();

  constructor(
    readonly width: number,
    readonly palette: readonly Rgb[],
  ) {
    if (palette.length > 16) throw new Error("a 4-bit PNG has at most 16 colours");
    this.stride = 1 + Math.ceil(width / 2);
  }

  private indexOf(red: number, green: number, blue: number): number {
    const key = (red << 16) | (green << 8) | blue;
    let index = this.nearest.get(key);
    if (index === undefined) {
      let best = Infinity;
      index = 0;
      for (const [at, [r, g, b]] of this.palette.entries()) {
        const distance = (red - r) ** 2 + (green - g) ** 2 + (blue - b) ** 2;
        if (distance < best) [best, index] = [distance, at];
      }
      this.nearest.set(key, index);
    }
    return index;
  }

  /** `rgba`'s rows (4 bytes a pixel, alpha ignored: the cards are opaque) written into `into` from row `firstRow`. */
  write(rgba: Uint8Array, into: Buffer, firstRow = 0): void {
    // A pixel as one number, to compare it with the one before (most pixels are the background).
    const aligned = rgba.byteOffset % 4 === 0 ? rgba : rgba.slice();
    const pixels = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
    const rows = pixels.length / this.width;
    let previous = -1;
    let index = 0;
    for (let y = 0; y < rows; y++) {
      const row = (firstRow + y) * this.stride;
      into[row] = 0;
      let byte = 0;
      for (let x = 0, at = y * this.width; x < this.width; x++, at++) {
        const pixel = pixels[at];
        if (pixel !== previous) {
          previous = pixel;
          index = this.indexOf(aligned[at * 4], aligned[at * 4 + 1], aligned[at * 4 + 2]);
        }
        if (x & 1) into[row + 1 + (x >> 1)] = byte | index;
        else byte = index << 4;
      }
      if (this.width & 1) into[row + this.stride - 1] = byte;
    }
  }
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * The PNG of `height` rows made by `IndexedRows`. zlib's level 4: for a card, 6 (the default)
 * takes twice the time for 6% fewer bytes, 3 a third less time for 17% more.
 */
export function indexedPng(rows: IndexedRows, height: number, data: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(rows.width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 4; // bits a pixel
  header[9] = 3; // indexed colour; compression, filter and interlace 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("PLTE", Buffer.from(rows.palette.flat())),
    chunk("IDAT", deflateSync(data, { level: 4 })),
    chunk("IEND", new Uint8Array()),
  ]);
}
