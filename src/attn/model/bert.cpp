// BERT's encoder (Devlin et al. 2019; transformers' modeling_bert): word + learned position +
// token type 0 embeddings through a LayerNorm, then post-LN blocks: attention, add, LayerNorm;
// erf GELU MLP, add, LayerNorm. Bidirectional; nn.Linear weights (out, in). No next token.
//
// config.json (key: default): vocab_size 30522, hidden_size 768, num_hidden_layers 12,
// num_attention_heads 12, intermediate_size 3072, max_position_embeddings 512 (the learned
// table's rows), type_vocab_size 2, layer_norm_eps 1e-12, hidden_act gelu,
// position_embedding_type absolute (the only one read).
#include <memory>
#include <string>

#include "attn/model/config_keys.hpp"
#include "attn/model/family.hpp"

namespace attn::model {

namespace {

constexpr std::string_view kPrefixes[] = {"", "bert."};

void read_config(const ConfigKeys& k, ModelConfig& c) {
    c.vocab_size = k.size({"vocab_size"}, 30522);
    c.hidden_size = k.size({"hidden_size"}, 768);
    c.num_layers = k.size({"num_hidden_layers"}, 12);
    c.num_heads = 12;
    read_heads(k, c, {"num_attention_heads"}, {"num_attention_heads"}, "");
    c.intermediate_size = k.size({"intermediate_size"}, 3072);
    c.max_positions = k.size({"max_position_embeddings"}, 512);
    c.type_vocab_size = k.size({"type_vocab_size"}, 2);
    c.norm_eps = k.number("layer_norm_eps", 1e-12);
    c.activation = activation(k, "hidden_act", k.text("hidden_act", "gelu"));
    const std::string kind = k.text("position_embedding_type", "absolute");
    if (kind != "absolute")
        k.fail("position_embedding_type", "'" + kind + "': attn reads absolute only");
    c.post_norm = true;
    c.causal = false;
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.tie_word_embeddings = k.flag("tie_word_embeddings", true);
}

struct Tensors {
    Tensor word, position, token_type;  // (V, d), (max_positions, d), (type_vocab, d)
    NormWeights embed_norm;
    struct Block {
        Linear query, key, value, output, intermediate, down;  // nn.Linear (out, in)
        NormWeights attention_norm, output_norm;
    };
    std::vector<Block> layer;
};

Tensors declare(const ModelConfig& c, TensorTable& t) {
    const std::uint64_t d = c.hidden_size, I = c.intermediate_size;
    const std::uint64_t hd = c.num_heads * c.head_dim;
    Tensors w;
    w.word = t.add("embeddings.word_embeddings.weight", {c.vocab_size, d});
    w.position = t.add("embeddings.position_embeddings.weight", {c.max_positions, d});
    w.token_type = t.add("embeddings.token_type_embeddings.weight", {c.type_vocab_size, d});
    w.embed_norm = t.layer_norm("embeddings.LayerNorm", d);
    for (std::size_t i = 0; i < c.num_layers; ++i) {
        t.layer(static_cast<int>(i));
        const std::string l = "encoder.layer." + std::to_string(i) + ".";
        Tensors::Block b;
        b.query = t.linear(l + "attention.self.query", hd, d, true);
        b.key = t.linear(l + "attention.self.key", hd, d, true);
        b.value = t.linear(l + "attention.self.value", hd, d, true);
        b.output = t.linear(l + "attention.output.dense", d, hd, true);
        b.attention_norm = t.layer_norm(l + "attention.output.LayerNorm", d);
        b.intermediate = t.linear(l + "intermediate.dense", I, d, true);
        b.down = t.linear(l + "output.dense", d, I, true);
        b.output_norm = t.layer_norm(l + "output.LayerNorm", d);
        w.layer.push_back(b);
    }
    return w;
}

template <class T>
class Bert final : public FamilyForward<T> {
    using B = FamilyForward<T>;
    using B::add, B::layer_norm, B::linear, B::feed_forward, B::projection;
    using B::c_;
    using B::w_;

  public:
    Bert(const ModelConfig& c, const TensorSource& s, std::size_t n)
        : B(c, s, n), t_(declare(c, this->table_)) {}

    Matrix<T> embed(std::span<const std::int64_t> ids) override {
        // e = (word[ids] + token_type[0]) + position[0..n)               (n, d)
        const std::size_t d = c_.hidden_size;
        Matrix<T> e = this->gather(t_.word, ids);
        std::vector<T> type0(d);
        w_.rows(t_.token_type, 0, 1, type0.data());
        for (std::size_t i = 0; i < e.shape(0); ++i)
            for (std::size_t j = 0; j < d; ++j) e(i, j) += type0[j];
        this->round(e);
        add(e, learned_positions());
        // h0 = LayerNorm(e)
        return layer_norm(e, t_.embed_norm);
    }

    Matrix<T> learned_positions() override {
        return this->position_rows(t_.position, "max_position_embeddings");
    }

    LayerResult<T> steps(std::size_t layer, Matrix<T>& h, Keep keep) override {
        const std::size_t H = c_.num_heads, hd = c_.head_dim;
        const typename Tensors::Block& b = t_.layer[layer];
        // q, k, v = h W^T + b (n, H hd): nn.Linear (H hd, d); head i at i hd
        const Matrix<T> q = linear(h, projection(b.query));
        const Matrix<T> k = linear(h, projection(b.key));
        const Matrix<T> v = linear(h, projection(b.value));
        LayerResult<T> r = this->attention(
            layer, {this->heads(q, H, 0, hd), this->heads(k, H, 0, hd), this->heads(v, H, 0, hd)},
            projection(b.output), keep, h);
        // h = LayerNorm(h + dense(attention))                            (n, d)
        h = layer_norm(h, b.attention_norm);
        // h = LayerNorm(h + dense(gelu(intermediate(h))))                (n, I) -> (n, d)
        const Matrix<T> x = h;
        feed_forward(h, x, projection(b.intermediate), c_.activation, projection(b.down));
        h = layer_norm(h, b.output_norm);
        return r;
    }

    LmHead head() override {
        // the MLM decoder (V, d): cls.predictions.decoder.weight, else the tied word
        // embeddings; its bias (V). No final norm: the blocks end in theirs.
        declare_mlm();
        return {{}, mlm_.decoder, mlm_.bias};
    }

    void check_lens() override {
        // every tensor of the MLM head present, else the store's error naming the first absent
        declare_mlm();
        for (const Tensor t : {mlm_.dense.weight, mlm_.dense.bias, mlm_.norm.weight, mlm_.norm.bias,
                               mlm_.decoder, mlm_.bias})
            (void)w_.view(t);
    }

  protected:
    Matrix<T> lens_input(const Matrix<T>& x) override {
        // cls.predictions.transform: LayerNorm(act(x dense^T + b))      (m, d)
        declare_mlm();
        Matrix<T> y = linear(x, projection(mlm_.dense));
        this->activate(y, c_.activation);
        return layer_norm(y, mlm_.norm);
    }

  private:
    // BertForMaskedLM's head, declared when the lens first asks (a BertModel has none)
    void declare_mlm() {
        if (mlm_.decoder) return;
        TensorTable& t = this->table_;
        const std::uint64_t d = c_.hidden_size, V = c_.vocab_size;
        t.layer(-1);
        mlm_.dense = t.linear("cls.predictions.transform.dense", d, d, true);
        mlm_.norm = t.layer_norm("cls.predictions.transform.LayerNorm", d);
        std::vector<std::string> decoder{"cls.predictions.decoder.weight"};
        if (c_.tie_word_embeddings)  // the word embeddings, with or without the prefix
            for (const std::string_view prefix : kPrefixes)
                decoder.push_back(std::string(prefix) + "embeddings.word_embeddings.weight");
        mlm_.decoder = t.add_any(decoder, {V, d});
        mlm_.bias = t.add_any({"cls.predictions.bias", "cls.predictions.decoder.bias"}, {V});
    }

    Tensors t_;
    struct {
        Linear dense;
        NormWeights norm;
        Tensor decoder, bias;
    } mlm_;
};

}  // namespace

extern const Family bert_family{
    .model_type = "bert",
    .layers_key = "num_hidden_layers",
    .read_config = read_config,
    .naming = {kPrefixes, true},
    .tensors = [](const ModelConfig& c, TensorTable& t) { declare(c, t); },
    .position_table = [](const ModelConfig& c, TensorTable& t) { return declare(c, t).position; },
    .forward_float = construct<Bert, float>,
    .forward_double = construct<Bert, double>,
    .gguf = {},  // not read from GGUF files yet
};

}  // namespace attn::model
