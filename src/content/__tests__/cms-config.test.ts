import { readYaml } from "../yaml";
import { readContent } from "../../../test/support/content";
import { backendFromEnv, type CmsField, cmsConfig, cmsConfigYaml, EFFECTS_FOLDER } from "../cms-config";
import { contentTypes, type FieldSpec, isObjectSpec, type ObjectSpec } from "../schema";

const config = cmsConfig();
const patternOf = (field: CmsField) => new RegExp(field.pattern![0]);

/** Every field path the CMS offers, as the build's check names them (`items[].url`). */
function cmsPaths(fields: CmsField[], prefix = ""): string[] {
  return fields.flatMap((field) => {
    const at = `${prefix}${field.name}`;
    if (field.fields) return [at, ...cmsPaths(field.fields, field.widget === "list" ? `${at}[].` : `${at}.`)];
    return [at];
  });
}

function specPaths(spec: ObjectSpec, prefix = ""): string[] {
  return Object.entries(spec).flatMap(([name, fieldSpec]: [string, FieldSpec]) => {
    const at = `${prefix}${name}`;
    const [item] = Array.isArray(fieldSpec) ? (fieldSpec as readonly [FieldSpec]) : [fieldSpec];
    const nested = isObjectSpec(item);
    if (!nested) return [at];
    return [at, ...specPaths(item as ObjectSpec, Array.isArray(fieldSpec) ? `${at}[].` : `${at}.`)];
  });
}

/** Every field of the generated form, however deep. */
const allFields = (fields: CmsField[]): CmsField[] =>
  fields.flatMap((field) => [field, ...allFields(field.fields ?? (field.field ? [field.field] : []))]);

const fileFields = (file: string): CmsField[] => {
  const collection = config.collections.find((entry) => entry.name === file);
  if (!collection || !("files" in collection)) throw new Error(`no collection for ${file}`);
  return collection.files[0].fields;
};

describe("the CMS configuration", () => {
  it.each(contentTypes.map((type) => [type.file, type]))(
    "offers content/%s.yaml with exactly the fields the build checks",
    (file, type) => {
      const collection = config.collections.find((entry) => entry.name === file)!;
      expect(collection).toMatchObject({ files: [{ file: `content/${file}.yaml` }] });
      expect(cmsPaths(fileFields(file)).sort()).toEqual(specPaths(type.fields).sort());
    },
  );

  it("makes every field required and labelled, and every list keep at least one item", () => {
    for (const type of contentTypes) {
      for (const field of allFields(fileFields(type.file))) {
        expect(field).toMatchObject({ required: true, label: expect.stringMatching(/^[A-Z]/) });
        if (field.widget === "list") expect(field.min).toBe(1);
      }
    }
  });

  it("checks addresses as the build does: the real ones pass, an http:// one does not", () => {
    const channels = fileFields("channels").find((field) => field.name === "items")!.fields!;
    const url = patternOf(channels.find((field) => field.name === "url")!);
    for (const item of readContent<{ items: { url: string }[] }>("channels").items) {
      expect(item.url).toMatch(url);
    }
    expect("http://www.youtube.com/@x").not.toMatch(url);
    expect("youtube.com").not.toMatch(url);
    const siteUrl = fileFields("brand").find((field) => field.name === "siteUrl")!;
    expect(readContent<{ siteUrl: string }>("brand").siteUrl).toMatch(patternOf(siteUrl));
  });

  it("offers a channel's kind as a choice of the kinds the site knows", () => {
    const kind = fileFields("channels")
      .find((field) => field.name === "items")!
      .fields!.find((field) => field.name === "kind")!;
    expect(kind).toMatchObject({ widget: "select", options: ["podcast", "video", "photo", "shortVideo"] });
  });

  it("refuses a blank text, as the build does", () => {
    const description = fileFields("core-values")
      .find((field) => field.name === "items")!
      .fields!.find((field) => field.name === "description")!;
    expect(description.widget).toBe("text");
    expect("   ").not.toMatch(patternOf(description));
    expect("Own your choices.").toMatch(patternOf(description));
  });

  it("offers every mail's words, accepting the placeholders that mail knows and refusing others, as the build does", () => {
    const mails = fileFields("newsletter").find((field) => field.name === "mails")!.fields!;
    const group = (name: string) => mails.find((field) => field.name === name)!.fields!;
    const expiryText = group("confirmation").find((field) => field.name === "expiryText")!;
    expect(expiryText).toMatchObject({ widget: "text", hint: expect.stringContaining("{expiry}") });
    const content = readContent<{ mails: Record<string, Record<string, string>> }>("newsletter").mails;
    for (const [name, fields] of Object.entries(content)) {
      for (const field of group(name)) expect(content[name][field.name]).toMatch(patternOf(field));
      expect(Object.keys(fields).sort()).toEqual(
        group(name)
          .map((field) => field.name)
          .sort(),
      );
    }
    expect("Until {expiry}").toMatch(patternOf(expiryText));
    expect("Until {when}").not.toMatch(patternOf(expiryText));
    expect("Until {expiry").not.toMatch(patternOf(expiryText));
    expect("  ").not.toMatch(patternOf(expiryText));
    const welcomeSubject = group("welcome").find((field) => field.name === "subject")!;
    expect("Welcome: {effect_title}").toMatch(patternOf(welcomeSubject));
    expect("Link expires {expiry}").not.toMatch(patternOf(welcomeSubject));
  });

  it("lets an editor create an Effect of the Day named by its day, with only its own fields saved", () => {
    const effects = config.collections.find((entry) => entry.name === "effects")!;
    expect(effects).toMatchObject({
      folder: EFFECTS_FOLDER,
      create: true,
      extension: "yaml",
      slug: "{{fields.date}}",
    });
    const fields = (effects as { fields: CmsField[] }).fields;
    expect(fields.map((field) => [field.name, field.widget])).toEqual([
      ["date", "effect-day"],
      ["title", "string"],
      ["summary", "string"],
      ["body", "markdown"],
    ]);
    const summary = patternOf(fields[2]);
    expect("The first hour of your day sets its direction, so spend it on purpose.").toMatch(summary);
    expect("Start early. Then rest.").not.toMatch(summary);
  });

  it("uses the GitHub repository a build runs in, or the one named for the CMS", () => {
    expect(backendFromEnv({ GITHUB_REPOSITORY: "owner/site" })).toMatchObject({
      repo: "owner/site",
      branch: "main",
    });
    expect(
      backendFromEnv({
        GITHUB_REPOSITORY: "owner/site",
        DECAP_GITHUB_REPO: "brand/content",
        DECAP_AUTH_URL: "https://auth.example",
      }),
    ).toEqual({ repo: "brand/content", branch: "main", authUrl: "https://auth.example" });
    const written = readYaml(cmsConfigYaml({ repo: "brand/content", authUrl: "https://auth.example" }));
    expect(written).toMatchObject({
      backend: { name: "github", repo: "brand/content", branch: "main", base_url: "https://auth.example" },
      local_backend: { url: "http://localhost:8081/api/v1" },
    });
  });
});
