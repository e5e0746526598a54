// The one enum of position schemes (encode --scheme, attend --scheme, a family's positions),
// apart from the schemes themselves (scheme.hpp) so that a model's config names one cheaply.
#pragma once

namespace attn::positions {

/// none: no positions inside attention (the notebook; also GPT-2's and BERT's learned tables,
/// added to the embeddings); sinusoidal: X + P; rope; alibi; t5 (relative buckets).
enum class Scheme { none, sinusoidal, rope, alibi, t5 };

/// Whether the scheme adds P to x before the projections (sinusoidal), making x' differ from x.
constexpr bool adds_to_x(Scheme s) {
    return s == Scheme::sinusoidal;
}

}  // namespace attn::positions
