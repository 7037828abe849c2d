/**
 * Reading a provider's export without a database: the CSV reader's lines (a BOM, CRLF, LF and a
 * lone CR, quoted commas, doubled quotes and line breaks), each provider's header refusing every
 * other provider's file, its times, and the import's pure rules (which word wins for a duplicate,
 * what an import does to an address already on the list).
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import {
  decideImport,
  type ExistingReader,
  mergeReaders,
} from "../../supabase/functions/_shared/subscriptions/import.ts";
import { CsvError, csvRecords } from "../csv-records.ts";
import { exportTime, ImportFormatError, PROVIDERS, type Provider } from "../import-formats.ts";
import { readExport } from "../subscriber-import.ts";

const FIXTURES = path.resolve(__dirname, "../../scripts/__tests__/__fixtures__/imports");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

/** Each fixture and the provider whose export it is. */
const FILES: Record<string, Provider> = {
  "subscribed_members_export_4b2c9d.csv": "mailchimp",
  "unsubscribed_members_export_4b2c9d.csv": "mailchimp",
  "cleaned_members_export_4b2c9d.csv": "mailchimp",
  "email_list.the-purpose-effect.csv": "substack",
  "kit-subscribers.csv": "kit",
  "buttondown-subscribers.csv": "buttondown",
  "member-export-2026-11-28.csv": "ghost",
};

describe("the CSV reader", () => {
  it("gives each record the line it starts on, quoted line breaks counted", () => {
    const text =
      '\ufeffemail,note\r\na@example.com,"one,\r\ntwo ""quoted""\nthree"\r\n\r\nb@example.com,plain\rc@example.com,"x"y\n';
    expect(csvRecords(text)).toEqual([
      { line: 1, fields: ["email", "note"] },
      { line: 2, fields: ["a@example.com", 'one,\r\ntwo "quoted"\nthree'] },
      { line: 6, fields: ["b@example.com", "plain"] },
      { line: 7, fields: ["c@example.com", "xy"] },
    ]);
  });

  it("reads a last line without its line end, and empty fields", () => {
    expect(csvRecords("a,,\n,b")).toEqual([
      { line: 1, fields: ["a", "", ""] },
      { line: 2, fields: ["", "b"] },
    ]);
  });

  it("names the line of a quoted field that is never closed", () => {
    expect(() => csvRecords('email\nx@example.com\n"y@example.com,\n')).toThrow(
      new CsvError("line 3: a quoted field is never closed"),
    );
  });

  it("reads every fixture with as many fields in each row as in its header", () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(Object.keys(FILES).sort());
    for (const name of Object.keys(FILES)) {
      const [header, ...rows] = csvRecords(fixture(name));
      for (const row of rows)
        expect([name, row.line, row.fields.length]).toEqual([name, row.line, header.fields.length]);
    }
  });
});

describe("the providers' exports", () => {
  it("refuses each provider's file as any other provider's, naming the columns it lacks", () => {
    for (const [name, own] of Object.entries(FILES)) {
      expect(() => readExport(own, name, fixture(name))).not.toThrow();
      for (const other of PROVIDERS.filter((provider) => provider !== own))
        expect(() => readExport(other, name, fixture(name))).toThrow(ImportFormatError);
    }
    expect(() => readExport("mailchimp", "x.csv", fixture("kit-subscribers.csv"))).toThrow(
      'x.csv is not Mailchimp\'s subscriber export: its header lacks "Email Address" and one of "CONFIRM_TIME", "OPTIN_TIME" (it has "first_name", "email_address", "state", "created_at", "tags").',
    );
  });

  it("refuses Mailchimp's non-subscribed contacts, an empty file and one that is not CSV", () => {
    const subscribed = fixture("subscribed_members_export_4b2c9d.csv");
    expect(() => readExport("mailchimp", "nonsubscribed_members_export_4b2c9d.csv", subscribed)).toThrow(
      /never opted in to the list, so they are not imported/,
    );
    expect(() => readExport("kit", "empty.csv", "\ufeff\r\n")).toThrow("empty.csv is empty.");
    expect(() => readExport("kit", "broken.csv", 'email,state\n"x@example.com,active\n')).toThrow(
      "broken.csv is not a CSV file that can be read: line 2: a quoted field is never closed.",
    );
  });

  it("reads what each row says, the addresses as the signup checks them", () => {
    const kit = readExport("kit", "kit.csv", fixture("kit-subscribers.csv"));
    expect(kit.rows).toBe(9);
    expect(kit.readers.map((reader) => [reader.email, reader.kind])).toEqual([
      ["kit.jo@example.com", "subscribed"],
      ["kit.kim@example.com", "unsubscribed"],
      ["kit.lou@example.com", "bounced"],
      ["kit.max@example.com", "complained"],
      ["shared.reader@example.com", "subscribed"],
      ["KIT.JO@example.com", "subscribed"],
    ]);
    expect(kit.skipped).toEqual(new Map([["never confirmed there (Kit: inactive)", 1]]));
    expect(kit.rejected).toEqual([
      { line: 10, value: "kit.nope@", reason: "not an address" },
      { line: 11, value: "kit.odd@example.com", reason: 'state "paused" is not one Kit writes' },
    ]);
    const mailchimp = readExport("mailchimp", "u.csv", fixture("unsubscribed_members_export_4b2c9d.csv"));
    expect(mailchimp.readers[1]).toEqual({
      email: "mc.fay@example.com",
      kind: "complained",
      optedInAt: new Date("2019-02-02T12:05:00Z"),
      leftAt: new Date("2023-08-08T08:08:08Z"),
    });
  });

  it("reads the times the exports write, zoned or UTC, and nothing else", () => {
    expect(exportTime("2024-03-01 09:30:00")).toEqual(new Date("2024-03-01T09:30:00Z"));
    expect(exportTime("2024-03-01T09:30:00.250+02:00")).toEqual(new Date("2024-03-01T07:30:00.250Z"));
    expect(exportTime("2024-03-01 09:30:00 UTC")).toEqual(new Date("2024-03-01T09:30:00Z"));
    expect(exportTime("2024-03-01")).toEqual(new Date("2024-03-01T00:00:00Z"));
    for (const unreadable of ["", "yesterday", "03/01/2024", "2024-13-45 99:99:99"])
      expect(exportTime(unreadable)).toBeNull();
  });
});

describe("the import's rules", () => {
  const at = (day: string) => new Date(`${day}T00:00:00Z`);

  it("merges an address's rows: the strictest word, the earliest opt-in", () => {
    const { merged, duplicates } = mergeReaders([
      { email: "ann@example.com", kind: "subscribed", optedInAt: at("2021-01-01"), leftAt: null },
      {
        email: "Ann@example.com",
        kind: "unsubscribed",
        optedInAt: at("2020-01-01"),
        leftAt: at("2022-01-01"),
      },
      { email: "ANN@example.com", kind: "subscribed", optedInAt: null, leftAt: null },
      { email: "bob@example.com", kind: "bounced", optedInAt: null, leftAt: null },
      { email: "BOB@example.com", kind: "complained", optedInAt: at("2019-01-01"), leftAt: at("2023-01-01") },
    ]);
    expect(duplicates).toBe(3);
    expect(merged).toEqual([
      {
        email: "Ann@example.com",
        kind: "unsubscribed",
        optedInAt: at("2020-01-01"),
        leftAt: at("2022-01-01"),
      },
      { email: "BOB@example.com", kind: "complained", optedInAt: at("2019-01-01"), leftAt: at("2023-01-01") },
    ]);
  });

  it("never makes an unsubscribed or suppressed reader confirmed, and keeps a reader's own consent", () => {
    const reader = (state: Partial<ExistingReader>): ExistingReader => ({
      status: "confirmed",
      suppressed: false,
      leftBefore: false,
      consentFromImport: false,
      ...state,
    });
    expect(decideImport(null, "subscribed")).toBe("insert");
    expect(decideImport(null, "complained")).toBe("insert");
    expect(decideImport(reader({ status: "unsubscribed" }), "subscribed")).toBe("keep");
    expect(decideImport(reader({ suppressed: true }), "subscribed")).toBe("keep");
    expect(decideImport(reader({ status: "pending", leftBefore: true }), "subscribed")).toBe("keep");
    expect(decideImport(reader({ status: "pending", suppressed: true }), "subscribed")).toBe("keep");
    expect(decideImport(reader({ status: "pending" }), "subscribed")).toBe("confirm");
    // A reader's own consent stands against any export; an import's yields to a later one.
    for (const kind of ["unsubscribed", "bounced", "complained"] as const) {
      expect(decideImport(reader({}), kind)).toBe("keep");
      expect(decideImport(reader({ status: "pending" }), kind)).toBe("keep");
    }
    expect(decideImport(reader({ consentFromImport: true }), "unsubscribed")).toBe("unsubscribe");
    expect(decideImport(reader({ consentFromImport: true }), "complained")).toBe("unsubscribe");
    expect(decideImport(reader({ consentFromImport: true }), "bounced")).toBe("suppress");
    expect(decideImport(reader({ consentFromImport: true, suppressed: true }), "bounced")).toBe("keep");
    expect(decideImport(reader({ consentFromImport: true, status: "unsubscribed" }), "complained")).toBe(
      "keep",
    );
  });
});
