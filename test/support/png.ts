/** Reading PNGs for tests: their size, and where two of the same size differ. */
import sharp from "sharp";

export interface Area {
  top: number;
  height: number;
}

/** A PNG's format, width and height as sharp reads it. */
export async function pngSize(png: Buffer): Promise<{ format?: string; width?: number; height?: number }> {
  const { format, width, height } = await sharp(png).metadata();
  return { format, width, height };
}

/**
 * The share of pixels in `area` (rows of the image; all of it by default) whose colour differs
 * between two images of the same size by more than `tolerance` in a channel: two palette PNGs
 * of one drawing may pick slightly different colours.
 */
export async function differingShare(a: Buffer, b: Buffer, area?: Area, tolerance = 32): Promise<number> {
  const raw = (png: Buffer) => sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [one, two] = await Promise.all([raw(a), raw(b)]);
  const { width, height, channels } = one.info;
  if (two.info.width !== width || two.info.height !== height) throw new Error("the images differ in size");
  const top = area?.top ?? 0;
  const rows = area?.height ?? height - top;
  // Math.abs read once: in Jest's sandbox every read of a global goes through the context's
  // interceptor, and reading `Math` for each of a card's 2.3 million channels took 240 ms a
  // comparison instead of 10.
  const { abs } = Math;
  let differing = 0;
  for (let y = top; y < top + rows; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * channels;
      for (let c = 0; c < channels; c += 1) {
        if (abs(one.data[at + c] - two.data[at + c]) > tolerance) {
          differing += 1;
          break;
        }
      }
    }
  }
  return differing / (rows * width);
}
