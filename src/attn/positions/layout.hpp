// The column order of a position scheme's pairs, one enum for every scheme. For d = 8 (a_k the
// k-th pair's value: rope's angle, or sinusoidal's sine s_k and cosine c_k):
//   split        [a0 a1 a2 a3 | a0 a1 a2 a3]   rope: Hugging Face's rotate_half; P: [s.. c..]
//   interleaved  [a0 a0 a1 a1 a2 a2 a3 a3]     rope: RoFormer, GPT-J, Meta's Llama; P: the
//                                              book's [s0 c0 s1 c1 ...]
#pragma once

namespace attn::positions {

enum class Layout { split, interleaved };

}  // namespace attn::positions
