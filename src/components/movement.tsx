// "Join the Movement": the channels.
import { graphql } from "gatsby";
import type { Channels } from "../content/schema";
import { ChannelIcon } from "./channel-icon";
import { ExternalLink } from "./external-link";
import { Section } from "./section";

interface MovementProps {
  channels: Channels;
}

/** The four channels, each card linking to its profile; the video channel's button stands out. */
export function Movement({ channels }: MovementProps) {
  return (
    <Section id="movement" title={channels.title} intro={channels.intro} tone="dark">
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {channels.items.map((channel) => (
          <li key={channel.kind} className="flex flex-col rounded-3xl bg-ink-soft p-6 ring-1 ring-white/10">
            <span className="text-ember-bright">
              <ChannelIcon kind={channel.kind} />
            </span>
            <p className="mt-4 text-sm font-semibold uppercase tracking-[0.18em] text-cream/75">
              {channel.platform}
            </p>
            <h3 className="mt-1 font-display text-2xl uppercase tracking-wide">{channel.name}</h3>
            <p className="mt-3 flex-1 leading-relaxed text-cream/85">{channel.description}</p>
            <ExternalLink
              href={channel.url}
              className={`mt-6 ${channel.kind === "video" ? "btn-primary" : "btn-outline-light"}`}
            >
              {channel.linkLabel}
            </ExternalLink>
          </li>
        ))}
      </ul>
    </Section>
  );
}

export const query = graphql`
  fragment MovementContent on Channels {
    title
    intro
    items {
      kind
      name
      platform
      description
      url
      linkLabel
    }
  }
`;
