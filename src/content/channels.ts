// A channel's address by kind.
import type { Channel, ChannelKind } from "./schema";

/** The channel of a kind; the build fails with the file's name when one the page needs is missing. */
export function channelUrl(channels: readonly Channel[], kind: ChannelKind): string {
  const channel = channels.find((item) => item.kind === kind);
  if (!channel) {
    throw new Error(`content/channels.yaml: add an item with "kind: ${kind}"; the landing page links to it.`);
  }
  return channel.url;
}
