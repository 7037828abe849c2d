/**
 * A field the page queries leave out still type-checks (the components' types come from
 * src/content/schema.ts) and renders `undefined`. This test reads every GraphQL query and fragment
 * in the site's code and fails for each field of content/ that none of them selects.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  Kind,
  parse,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { contentTypes, type FieldSpec, isObjectSpec, type ObjectSpec } from "../schema";

const ROOT = path.resolve(__dirname, "../../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__tests__" ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/**
 * The text of every graphql`...` tag (components, pages), graphql(`...`) call (gatsby-node.ts) and
 * build step's `query` (build/).
 */
function graphqlDocuments(): string[] {
  const files = [
    ...sourceFiles(path.join(ROOT, "src")),
    ...sourceFiles(path.join(ROOT, "build")),
    path.join(ROOT, "gatsby-node.ts"),
  ];
  return files.flatMap((file) =>
    [
      ...readFileSync(file, "utf8").matchAll(
        // graphql`...`, graphql(`...`), and a build step's query<Data>(build, "what", `...`)
        /(?:graphql(?:<[^`]*?>)?\(?\s*|\bquery<[^`]*?>\(\s*\w+,\s*"[^"]*",\s*)`([^`]*)`/g,
      ),
    ].map((match) => match[1]),
  );
}

const isObject = isObjectSpec;

/** The object a field's values have, looking through lists; null for a text. */
function objectOf(spec: FieldSpec): ObjectSpec | null {
  const item = Array.isArray(spec) ? (spec as readonly [FieldSpec])[0] : spec;
  return isObject(item) ? item : null;
}

/** Every field of a content type as a dotted path, lists' items included: `hero.tagline`, `items.url`. */
function leafPaths(spec: ObjectSpec, prefix = ""): string[] {
  return Object.entries(spec).flatMap(([field, fieldSpec]) => {
    const inner = objectOf(fieldSpec);
    return inner ? leafPaths(inner, `${prefix}${field}.`) : [`${prefix}${field}`];
  });
}

function selectedPaths(texts: string[]): Set<string> {
  const documents = texts.map((text) => parse(text));
  const definitions = documents.flatMap((document) => document.definitions);
  const fragments = new Map(
    definitions
      .filter(
        (definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION,
      )
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const selected = new Set<string>();
  const walk = (set: SelectionSetNode, spec: ObjectSpec, prefix: string) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment) throw new Error(`Fragment ${selection.name.value} is used but defined nowhere`);
        walk(fragment.selectionSet, spec, prefix);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, spec, prefix);
      } else {
        const fieldSpec = spec[selection.name.value];
        if (fieldSpec === undefined) continue;
        const inner = objectOf(fieldSpec);
        if (inner && selection.selectionSet)
          walk(selection.selectionSet, inner, `${prefix}${selection.name.value}.`);
        else selected.add(`${prefix}${selection.name.value}`);
      }
    }
  };
  const rootFields = new Map(
    contentTypes.map((type) => [type.typeName.charAt(0).toLowerCase() + type.typeName.slice(1), type]),
  );
  for (const operation of definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  )) {
    // A fragment on Query (the Effects' pages share one) stands for its root fields.
    const rootSelections = (set: SelectionSetNode): readonly SelectionNode[] =>
      set.selections.flatMap((selection) =>
        selection.kind === Kind.FRAGMENT_SPREAD &&
        fragments.get(selection.name.value)?.typeCondition.name.value === "Query"
          ? rootSelections(fragments.get(selection.name.value)!.selectionSet)
          : [selection],
      );
    for (const selection of rootSelections(operation.selectionSet)) {
      if (selection.kind !== Kind.FIELD || !selection.selectionSet) continue;
      // `heroImage: file(...)` and other non-content roots are skipped by their field name.
      const type = rootFields.get(selection.name.value);
      if (type) walk(selection.selectionSet, type.fields, `${type.file}.yaml: `);
    }
  }
  return selected;
}

function unselectedFields(texts: string[]): string[] {
  const selected = selectedPaths(texts);
  return contentTypes.flatMap((type) =>
    leafPaths(type.fields)
      .map((field) => `${type.file}.yaml: ${field}`)
      .filter((field) => !selected.has(field)),
  );
}

describe("the site's GraphQL queries", () => {
  it("select every field of every content file, so none renders as undefined", () => {
    expect(unselectedFields(graphqlDocuments())).toEqual([]);
  });

  it("name a field that a fragment stops selecting", () => {
    const documents = graphqlDocuments().map((text) =>
      text.includes("fragment HeroContent") ? text.replace(/^\s*tagline$/m, "") : text,
    );
    expect(unselectedFields(documents)).toEqual(["brand.yaml: hero.tagline"]);
  });
});
