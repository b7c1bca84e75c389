// Writes Foxglove's .proto files at build time from the npm package
// @foxglove/schemas (its "internal" export holds the schema definitions and
// generateProto, the generator Foxglove uses for its own published files), so
// the repository carries no copy of them. Writes the named messages and every
// message they import, one file per message as OUTDIR/foxglove/NAME.proto;
// google.protobuf.Timestamp and Duration come from protoc's own includes.
//
// usage: node generate_proto.mjs SCHEMAS_PACKAGE_DIR OUTDIR NAME...
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";

const [packageDir, outDir, ...roots] = process.argv.slice(2);
if (!packageDir || !outDir || roots.length === 0) {
  console.error("usage: node generate_proto.mjs SCHEMAS_PACKAGE_DIR OUTDIR NAME...");
  process.exit(2);
}
const require = createRequire(path.resolve(packageDir, "package.json"));
const internal = require(path.resolve(packageDir, "internal.js"));
const { foxgloveMessageSchemas, foxgloveEnumSchemas, generateProto } = internal;

const wanted = new Map();
function visit(name) {
  const schema = foxgloveMessageSchemas[name];
  if (schema === undefined) {
    console.error(`generate_proto: @foxglove/schemas has no message named ${name}`);
    process.exit(1);
  }
  if (schema.protoEquivalent !== undefined || wanted.has(name)) {
    return;
  }
  wanted.set(name, schema);
  for (const field of schema.fields) {
    if (field.type.type === "nested") {
      visit(field.type.schema.name);
    }
  }
}
roots.forEach(visit);

mkdirSync(path.join(outDir, "foxglove"), { recursive: true });
for (const [name, schema] of wanted) {
  const enums = Object.values(foxgloveEnumSchemas).filter((e) => e.parentSchemaName === name);
  const text = generateProto(schema, enums);
  const file = path.join(outDir, "foxglove", `${name}.proto`);
  // Leave an unchanged file alone so protoc and the compiler do not rerun.
  if (!existsSync(file) || readFileSync(file, "utf8") !== text) {
    writeFileSync(file, text);
  }
}
console.log([...wanted.keys()].sort().join(" "));
