#!/usr/bin/env node
// Converts the cel-spec conformance "simple" tests shipped by the npm package
// @bufbuild/cel-spec into one normalized JSON file for the Rust conformance test.
//
//   node tests/cel-spec/convert.mjs <path-to-node_modules> <out.json>
//
// Reads only the package's plain-data module dist/esm/testdata/conformance.js
// (the SimpleTest messages in protobuf JSON form) and node's standard library.
// See README.md in this folder for the output shape.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE = "@bufbuild/cel-spec";
const EXPECTED_VERSION = "0.6.1";

function die(msg) {
  process.stderr.write(`convert.mjs: ${msg}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Proto detection

// Well-known types that are ordinary CEL values for our purposes.
const PLAIN_MESSAGES = new Set(["google.protobuf.Duration", "google.protobuf.Timestamp"]);

function isProtoMessageName(name) {
  const n = name.replace(/^type\.googleapis\.com\//, "").replace(/^\./, "");
  return !PLAIN_MESSAGES.has(n);
}

// Replaces the contents of string/bytes literals and comments with spaces so the
// regexes below only look at code.
function stripLiterals(src) {
  let out = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") {
        out += " ";
        i++;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      // Raw if the literal's prefix (letters right before the quote) has r/R.
      let j = out.length - 1;
      let prefix = "";
      while (j >= 0 && /[rRbB]/.test(out[j])) prefix = out[j--] + prefix;
      const prefixOk = prefix.length <= 2 && (j < 0 || !/[\w.]/.test(out[j]));
      const raw = prefixOk && /[rR]/.test(prefix);
      const triple = src.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      out += '"';
      i += close.length;
      while (i < src.length && !src.startsWith(close, i)) {
        if (!raw && src[i] === "\\") {
          out += " ";
          i++;
        }
        if (i < src.length) {
          out += src[i] === "\n" ? "\n" : " ";
          i++;
        }
      }
      out += '"';
      i += close.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

const KEYWORDS = new Set(["in", "true", "false", "null"]);

function exprNeedsProto(expr) {
  const code = stripLiterals(expr);
  if (/TestAllTypes|TestRequired|GlobalEnum|NestedEnum|cel\.expr\.conformance/.test(code)) return true;
  for (const m of code.matchAll(/\bgoogle\.protobuf\.([A-Za-z_]\w*)/g)) {
    if (isProtoMessageName(`google.protobuf.${m[1]}`)) return true;
  }
  // Message construction `Name{...}` / `.a.b.Name{...}` (map literals are never
  // preceded by an identifier). Covers google.protobuf.Duration{...} too, which
  // needs message-construction support.
  for (const m of code.matchAll(/(?:^|[^\w.])\.?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\{/g)) {
    if (!KEYWORDS.has(m[1])) return true;
  }
  // Fields that only the conformance test messages have (the receiver is then a
  // message even when nothing else in the test names one).
  if (/\.\??single_\w/.test(code)) return true;
  if (/\bproto\.(getExt|hasExt)\b/.test(code)) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Normalization of cel.expr.Value / cel.expr.Type / cel.expr.Decl

class Ctx {
  constructor() {
    this.needsProto = false;
    this.notes = [];
  }
  proto() {
    this.needsProto = true;
  }
}

function int64String(v) {
  if (typeof v === "number" && !Number.isSafeInteger(v)) {
    throw new Error(`64-bit integer ${v} already lost precision`);
  }
  return String(v);
}

function normDouble(v) {
  if (typeof v === "string") {
    if (v === "NaN" || v === "Infinity" || v === "-Infinity") return v;
    const n = Number(v);
    if (Number.isNaN(n)) throw new Error(`bad double ${v}`);
    v = n;
  }
  if (Object.is(v, -0)) return "-0";
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  return v;
}

function normBytes(b64) {
  // protobuf JSON accepts standard or URL-safe base64, with or without padding.
  return Buffer.from(b64, "base64").toString("base64");
}

// cel.expr.Value (protobuf JSON) -> V
function normValue(v, ctx) {
  const keys = Object.keys(v ?? {});
  if (keys.length !== 1) {
    ctx.notes.push("value with unexpected shape");
    return { raw: v };
  }
  const [k] = keys;
  const x = v[k];
  switch (k) {
    case "nullValue":
      return { null: null };
    case "boolValue":
      return { bool: x };
    case "int64Value":
      return { int: int64String(x) };
    case "uint64Value":
      return { uint: int64String(x) };
    case "doubleValue":
      return { double: normDouble(x) };
    case "stringValue":
      return { string: x };
    case "bytesValue":
      return { bytes: normBytes(x) };
    case "listValue":
      return { list: (x.values ?? []).map((e) => normValue(e, ctx)) };
    case "mapValue":
      return {
        map: (x.entries ?? []).map((e) => [normValue(e.key, ctx), normValue(e.value, ctx)]),
      };
    case "typeValue":
      if (/^(google\.protobuf\.|cel\.expr\.conformance\.)/.test(x) && isProtoMessageName(x)) ctx.proto();
      return { type: x };
    case "enumValue":
      ctx.proto();
      return { enum: { type: x.type ?? "", value: x.value ?? 0 } };
    case "objectValue":
      return normAny(x, ctx);
    default:
      ctx.notes.push(`unknown value kind ${k}`);
      return { raw: v };
  }
}

// google.protobuf.Any in protobuf JSON form: {"@type": url, ...fields} or, for
// well-known types with special JSON, {"@type": url, "value": json}.
function normAny(any, ctx) {
  const typeUrl = any["@type"] ?? "";
  const name = typeUrl.replace(/^.*\//, "");
  if (name === "google.protobuf.Duration" && typeof any.value === "string") {
    return { duration: any.value };
  }
  if (name === "google.protobuf.Timestamp" && typeof any.value === "string") {
    return { timestamp: any.value };
  }
  ctx.proto();
  const json = { ...any };
  delete json["@type"];
  return { object: { typeUrl, json } };
}

// cel.expr.Type (protobuf JSON) -> T
function normType(t, ctx) {
  if (t === undefined || t === null) return null;
  const keys = Object.keys(t);
  if (keys.length !== 1) {
    if (keys.length === 0) return null; // unset Type (e.g. the parameter of a bare `type`)
    ctx.notes.push("type with unexpected shape");
    return { raw: t };
  }
  const [k] = keys;
  const x = t[k];
  switch (k) {
    case "dyn":
      return { dyn: true };
    case "null":
      return { null: true };
    case "primitive":
      return { primitive: x };
    case "wrapper":
      ctx.proto();
      return { wrapper: x };
    case "wellKnown":
      if (x !== "DURATION" && x !== "TIMESTAMP") ctx.proto();
      return { wellKnown: x };
    case "listType":
      return { list: normType(x.elemType, ctx) };
    case "mapType":
      return { map: [normType(x.keyType, ctx), normType(x.valueType, ctx)] };
    case "messageType":
      if (isProtoMessageName(x)) ctx.proto();
      return { message: x };
    case "type":
      return { type: normType(x, ctx) };
    case "typeParam":
      return { typeParam: x };
    case "abstractType":
      return {
        abstract: { name: x.name ?? "", params: (x.parameterTypes ?? []).map((p) => normType(p, ctx)) },
      };
    case "function":
      return {
        function: { result: normType(x.resultType, ctx), args: (x.argTypes ?? []).map((a) => normType(a, ctx)) },
      };
    case "error":
      return { error: true };
    default:
      ctx.notes.push(`unknown type kind ${k}`);
      return { raw: t };
  }
}

// cel.expr.Decl -> decl
function normDecl(d, ctx) {
  if (d.ident) {
    const out = { ident: d.name, type: normType(d.ident.type, ctx) };
    if (d.ident.value !== undefined) out.value = normConstant(d.ident.value, ctx);
    return out;
  }
  if (d.function) {
    return {
      function: d.name,
      overloads: (d.function.overloads ?? []).map((o) => {
        const ov = {
          id: o.overloadId ?? "",
          params: (o.params ?? []).map((p) => normType(p, ctx)),
          result: normType(o.resultType, ctx),
          receiverStyle: o.isInstanceFunction ?? false,
        };
        if (o.typeParams?.length) ov.typeParams = o.typeParams;
        return ov;
      }),
    };
  }
  ctx.notes.push("declaration with unexpected shape");
  return { raw: d };
}

// cel.expr.Constant (used by ident declarations with a constant value) -> V
function normConstant(c, ctx) {
  const keys = Object.keys(c);
  if (keys.length === 1 && /Value$/.test(keys[0]) && !["durationValue", "timestampValue"].includes(keys[0])) {
    return normValue(c, ctx);
  }
  if (keys.length === 1 && keys[0] === "durationValue") return { duration: c.durationValue };
  if (keys.length === 1 && keys[0] === "timestampValue") return { timestamp: c.timestampValue };
  ctx.notes.push("constant with unexpected shape");
  return { raw: c };
}

// cel.expr.ExprValue (bindings) -> V
function normExprValue(ev, ctx) {
  if (ev.value !== undefined) return normValue(ev.value, ctx);
  ctx.notes.push("binding that is not a plain value");
  return { raw: ev };
}

function errorMessages(errorSet) {
  return (errorSet?.errors ?? []).map((s) => s.message ?? "");
}

// The SimpleTest result matcher -> expect
function normExpect(o, ctx) {
  if (o.value !== undefined) return { value: normValue(o.value, ctx) };
  if (o.evalError !== undefined) {
    const msgs = errorMessages(o.evalError);
    if (msgs.length <= 1) return { error: msgs[0] ?? "" };
    return { error: msgs.join("; "), errors: msgs };
  }
  if (o.anyEvalErrors !== undefined) {
    return { anyErrors: (o.anyEvalErrors.errors ?? []).map(errorMessages) };
  }
  if (o.unknown !== undefined) {
    return { unknown: (o.unknown.exprs ?? []).map(String) };
  }
  if (o.anyUnknowns !== undefined) {
    return { anyUnknowns: (o.anyUnknowns.unknowns ?? []).map((u) => (u.exprs ?? []).map(String)) };
  }
  if (o.typedResult !== undefined) {
    const type = normType(o.typedResult.deducedType, ctx);
    if (o.typedResult.result !== undefined) {
      return { typedValue: { value: normValue(o.typedResult.result, ctx), type } };
    }
    return { type };
  }
  // cel-spec: a test without a result matcher expects the boolean `true`.
  return { value: { bool: true } };
}

const KNOWN_TEST_KEYS = new Set([
  "name",
  "description",
  "expr",
  "disableMacros",
  "disableCheck",
  "checkOnly",
  "typeEnv",
  "container",
  "bindings",
  "value",
  "evalError",
  "anyEvalErrors",
  "unknown",
  "anyUnknowns",
  "typedResult",
]);

function convertTest(t) {
  const o = t.original;
  const ctx = new Ctx();
  const out = {
    name: o.name ?? o.expr.replace(/\s+/g, " ").trim(),
    expr: o.expr,
    container: o.container ?? "",
    disableMacros: o.disableMacros ?? false,
    disableCheck: o.disableCheck ?? false,
    checkOnly: o.checkOnly ?? false,
    decls: (o.typeEnv ?? []).map((d) => normDecl(d, ctx)),
    bindings: Object.fromEntries(
      Object.entries(o.bindings ?? {}).map(([name, ev]) => [name, normExprValue(ev, ctx)]),
    ),
    expect: normExpect(o, ctx),
  };
  if (o.description) out.description = o.description;
  if (o.locale) out.locale = o.locale;
  // Informational, derived from cel-go by the package (not part of cel-spec).
  if (t.type !== undefined) out.celGoType = t.type;
  if (t.error !== undefined) out.celGoError = t.error;
  const unknownKeys = Object.keys(o).filter((k) => !KNOWN_TEST_KEYS.has(k) && k !== "locale");
  if (unknownKeys.length || ctx.notes.length) {
    out.raw = o;
    if (ctx.notes.length) out.rawNotes = [...new Set(ctx.notes)];
  }
  if (exprNeedsProto(o.expr)) ctx.proto();
  out.needsProto = ctx.needsProto;
  return out;
}

// ---------------------------------------------------------------------------

async function main() {
  const [nodeModules, outFile] = process.argv.slice(2);
  if (!nodeModules || !outFile) die("usage: node convert.mjs <path-to-node_modules> <out.json>");
  const pkgDir = path.resolve(nodeModules, PACKAGE);
  const pkgJsonPath = path.join(pkgDir, "package.json");
  if (!fs.existsSync(pkgJsonPath)) die(`${pkgJsonPath} not found; npm install ${PACKAGE}@${EXPECTED_VERSION} first`);
  const pkg = JSON.parse(fs.readFileSync(pkgJsonPath, "utf8"));
  if (pkg.version !== EXPECTED_VERSION) {
    process.stderr.write(`convert.mjs: warning: ${PACKAGE} is ${pkg.version}, expected ${EXPECTED_VERSION}\n`);
  }
  const dataPath = path.join(pkgDir, "dist", "esm", "testdata", "conformance.js");
  if (!fs.existsSync(dataPath)) die(`${dataPath} not found`);
  const { tests: root } = await import(pathToFileURL(dataPath).href);

  const files = [];
  for (const file of root.suites ?? []) {
    const sections = [];
    for (const section of file.suites ?? []) {
      if (section.suites?.length) die(`unexpected nesting below ${file.name}/${section.name}`);
      sections.push({ name: section.name, tests: (section.tests ?? []).map(convertTest) });
    }
    if (file.tests?.length) die(`unexpected tests directly under file ${file.name}`);
    files.push({ name: file.name, sections });
  }

  const out = {
    source: { package: PACKAGE, version: pkg.version, celSpecRef: pkg.upstreamCelSpecRef ?? "" },
    files,
  };
  fs.mkdirSync(path.dirname(path.resolve(outFile)), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(out) + "\n");

  // Summary
  const rows = files.map((f) => {
    const tests = f.sections.flatMap((s) => s.tests);
    return [f.name, tests.length, tests.filter((t) => t.needsProto).length, tests.filter((t) => t.raw).length];
  });
  const total = rows.reduce((a, r) => [a[0], a[1] + r[1], a[2] + r[2], a[3] + r[3]], ["TOTAL", 0, 0, 0]);
  const w = Math.max(...rows.map((r) => r[0].length), 5);
  const line = (r) => `${r[0].padEnd(w)}  ${String(r[1]).padStart(5)}  ${String(r[2]).padStart(10)}  ${String(r[3]).padStart(3)}`;
  console.log(line(["file", "tests", "needsProto", "raw"]));
  for (const r of rows) console.log(line(r));
  console.log(line(total));
  console.log(`wrote ${outFile} (${fs.statSync(outFile).size} bytes) from ${PACKAGE}@${pkg.version}`);
}

main().catch((e) => die(e.stack ?? String(e)));
