#include "attn/model/run.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "attn/model/streamed_summaries.hpp"

namespace attn::model {

template <class T>
ModelRun<T>::ModelRun(const ModelConfig& c, const TensorSource& source,
                      std::vector<std::int64_t> ids, std::vector<std::size_t> layers,
                      std::vector<std::size_t> heads, Keep keep, bool next)
    : f_(make_forward<T>(c, source, ids.size())),
      source_(source),
      ids_(std::move(ids)),
      layers_(std::move(layers)),
      heads_(std::move(heads)),
      keep_(keep),
      want_next_(next) {
    if (ids_.empty()) throw std::invalid_argument("no tokens to run the model on");
    if (layers_.empty() || heads_.empty())
        throw std::invalid_argument("no layer or no head selected");
    restart();
}

template <class T>
void ModelRun<T>::restart() {
    h_ = f_->embed(ids_);
    check_finite(h_.data(), h_.shape(0), h_.shape(1), 0, std::nullopt);
    block_ = 0;
    selected_ = 0;
    if (recorded_) return;
    hidden_.clear();
    context_.clear();
    if (choice_) summaries_ = std::make_unique<AttentionSummaries>(ids_.size(), *choice_);
    if (value_choice_) values(*value_choice_);
    lens_.clear();
    if (layers_.front() == 0 && record_hidden_) hidden_.push_back(h_);
}

template <class T>
void ModelRun<T>::step() {
    const bool chosen = selected_ < layers_.size() && layers_[selected_] == block_;
    if (!recorded_ && record_hidden_ && selected_ == 0 && chosen && block_ > 0)
        hidden_.push_back(h_);
    LayerResult<T> r = f_->block(block_, h_, chosen ? keep_ : Keep{});
    check_finite(r.output.data(), r.output.shape(0), r.output.shape(1), f_->config().head_dim,
                 block_);
    check_finite(h_.data(), h_.shape(0), h_.shape(1), 0, block_);
    ++block_;
    if (!chosen) return;
    if (value_choice_) last_values_ = f_->values();
    if (!recorded_) {
        if (value_summaries_) {
            // value_weights_l (n, n) from all H heads, whatever the selection
            std::vector<const T*> w;
            for (const Matrix<T>& m : r.weights) w.push_back(m.data());
            const std::vector<double> vw = value_weights(last_values_, w);
            value_summaries_->add_head(block_ - 1, 0, std::span<const double>(vw));
            value_summaries_->end_layer();
        }
        if (lens_choice_) {
            std::vector<std::int64_t> targets(lens_positions_.size(), -1);
            for (std::size_t r = 0; r < targets.size(); ++r)
                if (lens_choice_->next && lens_positions_[r] + 1 < ids_.size())
                    targets[r] = ids_[lens_positions_[r] + 1];
            lens_.push_back(f_->lens(h_, lens_positions_, lens_choice_->top ? lens_choice_->k : 0,
                                     std::move(targets)));
        }
        if (summaries_) {
            for (const std::size_t head : heads_)
                if (r.weights.empty()) {  // the fused kernel's: row blocks, no n x n held
                    const HeadSummary s = stream_head_summary(*r.rows, block_ - 1, head,
                                                              ids_.size(), choice_->offsets);
                    summaries_->add_reduced(block_ - 1, head, s.stats, s.offsets);
                } else {
                    summaries_->add_head(
                        block_ - 1, head,
                        std::span<const T>(r.weights[head].data(), r.weights[head].size()));
                }
            summaries_->end_layer();
        }
        if (record_hidden_) hidden_.push_back(h_);
        if (record_context_) {
            // context_h = concat[:, h hd .. (h+1) hd] (the layer's output: no W_o inside)  (n, hd)
            const std::size_t hd = f_->config().head_dim, n = ids_.size();
            std::vector<Matrix<T>> ctx;
            for (const std::size_t head : heads_) {
                Matrix<T> m = Matrix<T>::from_shape({n, hd});
                for (std::size_t i = 0; i < n; ++i)
                    std::copy_n(&r.output(i, head * hd), hd, &m(i, 0));
                ctx.push_back(std::move(m));
            }
            context_.push_back(std::move(ctx));
        }
    }
    last_ = std::move(r);
    if (++selected_ == layers_.size()) recorded_ = true;
}

template <class T>
void ModelRun<T>::check_finite(const T* out, std::size_t rows, std::size_t cols, std::size_t hd,
                               std::optional<std::size_t> layer) {
    if (nonfinite_) return;
    const auto at = first_nonfinite(out, rows, cols);
    if (!at) return;
    NonFinite where;
    where.layer = layer;
    if (hd > 0) where.head = at->second / hd;
    where.position = at->first;
    where.tensor = nonfinite_tensor(f_->config(), source_, layer);
    nonfinite_ = std::move(where);
}

template <class T>
void ModelRun<T>::summarise(SummaryChoice choice) {
    choice_ = choice;
    // head_stats and offsets stream from the fused kernel's rows; the sums of mean_weights and
    // rollout (and a compute dtype's direct path) take each head's n x n weights
    if (choice.mean_weights || choice.rollout || f_->config().compute_dtype) keep_.weights = true;
    summaries_ = std::make_unique<AttentionSummaries>(ids_.size(), choice);
}

template <class T>
void ModelRun<T>::lens(LensChoice choice) {
    f_->check_lens();
    lens_choice_ = choice;
    lens_positions_.clear();
    if (choice.position && !choice.next)
        lens_positions_.push_back(*choice.position);
    else
        for (std::size_t p = 0; p < ids_.size(); ++p) lens_positions_.push_back(p);
}

template <class T>
void ModelRun<T>::values(ValueChoice choice) {
    value_choice_ = choice;
    keep_.weights = true;
    f_->record_values(true);
    if (choice.weights || choice.rollout)
        value_summaries_ = std::make_unique<AttentionSummaries>(
            ids_.size(), SummaryChoice{false, false, choice.weights, choice.rollout});
}

template <class T>
void ModelRun<T>::record(bool hidden, bool context) {
    record_hidden_ = hidden;
    record_context_ = context;
    if (!hidden) hidden_.clear();
}

template <class T>
const LayerResult<T>& ModelRun<T>::layer(std::size_t k) {
    if (k >= layers_.size()) throw std::out_of_range("layer index past the selected layers");
    if (k + 1 < selected_) restart();  // an earlier layer: run again from the embedding
    while (selected_ < k + 1) step();
    return last_;
}

template <class T>
void ModelRun<T>::finish() {
    while (!recorded_) step();
    if (!want_next_ || !next_.empty()) return;
    while (block_ < f_->config().num_layers) step();
    // p = softmax(logits), in double from T's logits                    (V)
    const std::vector<T> logits = f_->next_logits(h_);
    if (!nonfinite_) {
        check_finite(logits.data(), 1, logits.size(), 0, std::nullopt);
        if (nonfinite_) nonfinite_->part = "the LM head", nonfinite_->position = ids_.size() - 1;
    }
    const double m = static_cast<double>(*std::max_element(logits.begin(), logits.end()));
    next_.resize(logits.size());
    double sum = 0;
    for (std::size_t v = 0; v < logits.size(); ++v)
        sum += next_[v] = std::exp(static_cast<double>(logits[v]) - m);
    for (double& p : next_) p /= sum;
}

std::vector<std::size_t> top_ids(const std::vector<double>& p, std::size_t k) {
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(k, p.size()));
    // NaN ranks below every probability (a strict weak order even with NaN), ties by id
    const auto key = [&p](std::size_t a) { return std::isnan(p[a]) ? -1.0 : p[a]; };
    std::partial_sort(order.begin(), end, order.end(), [&key](std::size_t a, std::size_t b) {
        return key(a) != key(b) ? key(a) > key(b) : a < b;
    });
    order.erase(end, order.end());
    return order;
}

template class ModelRun<float>;
template class ModelRun<double>;

}  // namespace attn::model
