import { buildSchema } from "graphql";
import { readContent } from "../../../test/support/content";
import { checkContent, contentTypeForFile, contentTypes, toTypeDefs, typeNameForFile } from "../schema";

const brandSpec = contentTypeForFile("brand")!.fields;

describe("the content files", () => {
  it.each(contentTypes.map((type) => type.file))("content/%s.yaml matches its description", (file) => {
    expect(checkContent(contentTypeForFile(file)!.fields, readContent(file))).toEqual([]);
  });
});

describe("checking a content file", () => {
  const brand = () => readContent<Record<string, unknown>>("brand");

  it("names a missing nested field", () => {
    const data = brand();
    data.hero = { ...(data.hero as object), tagline: undefined };
    expect(checkContent(brandSpec, data)).toEqual(['missing field "hero.tagline"']);
  });

  it("names a misspelt field and lists the expected ones", () => {
    const data = brand();
    data.nmae = data.name;
    delete data.name;
    expect(checkContent(brandSpec, data)).toEqual([
      'missing field "name"',
      expect.stringContaining('unknown field "nmae" (expected one of: name, siteUrl'),
    ]);
  });

  it("rejects an address that is not https and an empty text", () => {
    const data = { ...brand(), siteUrl: "thepurposeeffect.com", description: "  " };
    expect(checkContent(brandSpec, data)).toEqual([
      '"siteUrl" must be a full https:// address (got "thepurposeeffect.com")',
      '"description" must be a non-empty text',
    ]);
  });

  it("rejects a time zone that is not an IANA name", () => {
    const data = { ...brand(), timeZone: "Eastern" };
    expect(checkContent(brandSpec, data)).toEqual([
      '"timeZone" must be a time zone name such as "America/New_York" or "Europe/Paris" (got "Eastern")',
    ]);
  });

  it("points into lists by position and checks a channel's kind", () => {
    const channels = readContent<{ items: Record<string, unknown>[] }>("channels");
    channels.items[2] = { ...channels.items[2], kind: "radio" };
    expect(checkContent(contentTypeForFile("channels")!.fields, channels)).toEqual([
      '"items[2].kind" must be one of podcast, video, photo, shortVideo (got "radio")',
    ]);
  });

  it("rejects a second channel of the same kind", () => {
    const channels = readContent<{ items: Record<string, unknown>[] }>("channels");
    channels.items[3] = { ...channels.items[3], kind: "video" };
    expect(checkContent(contentTypeForFile("channels")!.fields, channels)).toEqual([
      '"items[3].kind" must be different from "items[1].kind" (both are "video")',
    ]);
  });

  it("rejects a story paragraph given twice, in either section", () => {
    const story = readContent<Record<string, { title: string; paragraphs: string[] }>>("story");
    story.why.paragraphs.push(story.why.paragraphs[0]);
    story.biography.paragraphs[2] = story.biography.paragraphs[1];
    expect(checkContent(contentTypeForFile("story")!.fields, story)).toEqual([
      '"why.paragraphs[3]" must be different from "why.paragraphs[0]" (the same text twice)',
      '"biography.paragraphs[2]" must be different from "biography.paragraphs[1]" (the same text twice)',
    ]);
  });

  it("rejects a core value listed twice", () => {
    const values = readContent<{ items: Record<string, unknown>[] }>("core-values");
    values.items.push({ title: "Love", description: "Again." });
    expect(checkContent(contentTypeForFile("core-values")!.fields, values)).toEqual([
      '"items[6].title" must be different from "items[5].title" (both are "Love")',
    ]);
  });

  it("names the file and the field when the build reads a repeated channel", async () => {
    const { onCreateNode } = await import("../../../gatsby-node");
    const channels = readContent<{ items: Record<string, unknown>[] }>("channels");
    channels.items[2] = { ...channels.items[2], kind: "podcast" };
    const panicOnBuild = jest.fn();
    const file = { relativePath: "channels.yaml" };
    const node = { ...channels, id: "1", parent: "file", children: [], internal: { type: "Channels" } };
    await onCreateNode!(
      { node, getNode: () => file, reporter: { panicOnBuild } } as never,
      {} as never,
      () => undefined,
    );
    expect(panicOnBuild).toHaveBeenCalledWith(
      'content/channels.yaml: "items[2].kind" must be different from "items[0].kind" (both are "podcast")',
    );
  });
});

describe("the GraphQL types", () => {
  it("declare every field non-null, one type per shared shape", () => {
    const defs = toTypeDefs();
    const schema = buildSchema(`interface Node { id: ID! }\ndirective @dontInfer on OBJECT\n${defs}`);
    expect(schema.getType("Brand")?.toString()).toBe("Brand");
    expect(defs).toContain("tagline: String!");
    expect(defs).toContain("paragraphs: [String!]!");
    expect(defs).toContain("items: [ChannelsItems!]!");
    // The two story sections share one type, named for what it is, so one fragment serves both;
    // so do the confirm and unsubscribe screens.
    expect(defs).toMatch(/why: StorySection!\n\s+biography: StorySection!/);
    expect(defs).toMatch(/confirm: LinkScreen!\n\s+unsubscribe: LinkScreen!/);
    expect(defs).not.toMatch(/type (StoryWhy|StoryBiography|NewsletterConfirm|NewsletterUnsubscribe) /);
  });

  it("names each file's type, and leaves unknown files to the plugin's default", () => {
    expect(typeNameForFile("core-values")).toBe("CoreValues");
    expect(typeNameForFile("press-kit")).toBe("PressKitYaml");
  });
});
