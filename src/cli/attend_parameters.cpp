// attn attend's parameters: W_query, W_key, W_value per head and W_o (and their biases), read
// from .npy files or drawn from the seed in the notebook's order, and the widths they imply.
#include "cli/attend.hpp"

#include <fmt/format.h>

#include "attn/embedding.hpp"
#include "attn/torch_random.hpp"
#include "cli/errors.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace {

std::optional<ProjectionFile> read_projection(const std::string& option, const std::string& path) {
    if (path.empty()) return std::nullopt;
    return ProjectionFile{read_npy_option(option, path)};
}

void check_projection(const std::string& option, const std::string& path, const ProjectionFile& f,
                      std::size_t heads, std::size_t d_in, std::size_t d, const char* dname) {
    const auto& sh = f.a.shape;
    const bool ok = (sh.size() == 2 && sh[0] == d_in && sh[1] == heads * d) ||
                    (sh.size() == 3 && sh[0] == heads && sh[1] == d_in && sh[2] == d);
    if (!ok)
        throw UsageError(fmt::format(
            "{}: {} has shape {}; {} head{} with d_in = {} and {} = {} need ({}, {}){}", option,
            path, shape_string(sh), heads, heads > 1 ? "s" : "", d_in, dname, d, d_in, heads * d,
            heads > 1 ? fmt::format(" or ({}, {}, {})", heads, d_in, d) : std::string()));
}

// Head h's (d_in, d) block of a projection file.
template <class T>
xt::xtensor<T, 2> head_block(const ProjectionFile& f, std::size_t h, std::size_t heads) {
    const auto& sh = f.a.shape;
    const std::size_t d_in = sh.size() == 3 ? sh[1] : sh[0];
    const std::size_t d = f.width(heads);
    xt::xtensor<T, 2> w = xt::xtensor<T, 2>::from_shape({d_in, d});
    for (std::size_t i = 0; i < d_in; ++i)
        for (std::size_t j = 0; j < d; ++j)
            w(i, j) = static_cast<T>(sh.size() == 3 ? f.a.values[(h * d_in + i) * d + j]
                                                    : f.a.values[i * sh[1] + h * d + j]);
    return w;
}

}  // namespace

std::size_t ProjectionFile::width(std::size_t heads) const {
    if (a.shape.size() == 3) return a.shape[0] == heads ? a.shape[2] : 0;
    if (a.shape.size() == 2) return a.shape[1] % heads == 0 ? a.shape[1] / heads : 0;
    return 0;
}

ProjectionFiles read_projections(const AttendOptions& opt) {
    return {read_projection("--wq", opt.wq), read_projection("--wk", opt.wk),
            read_projection("--wv", opt.wv), read_projection("--wo", opt.wo)};
}

Dims projection_dims(const AttendOptions& opt, const ProjectionFiles& f, std::size_t d_in) {
    if (opt.no_projection) {  // Q = K = V = X: one head as wide as the rows
        const std::pair<bool, const char*> given[] = {{opt.dq_opt->count() > 0, "--dq"},
                                                      {opt.dk_opt->count() > 0, "--dk"},
                                                      {opt.dv_opt->count() > 0, "--dv"},
                                                      {!opt.wq.empty(), "--wq"},
                                                      {!opt.wk.empty(), "--wk"},
                                                      {!opt.wv.empty(), "--wv"},
                                                      {!opt.wo.empty(), "--wo"},
                                                      {opt.out_proj, "--out-proj"},
                                                      {opt.heads != 1, "--heads"},
                                                      {opt.bias, "--bias"},
                                                      {opt.init != ProjectionInit::rand, "--init"}};
        for (const auto& [set, name] : given)
            if (set)
                throw UsageError(fmt::format(
                    "--no-projection: Q = K = V = X has no projections; it cannot be combined "
                    "with {}",
                    name));
        return {1, d_in, d_in, d_in, d_in, d_in, false};
    }
    const auto H = static_cast<std::size_t>(opt.heads);
    // --input rows keep their width unless told otherwise: d_q = d_v = d_in
    const bool input = !opt.input.empty();
    std::size_t dq = !opt.dq_opt->count() && input ? d_in : static_cast<std::size_t>(opt.dq);
    std::size_t dv = !opt.dv_opt->count() && input ? d_in : static_cast<std::size_t>(opt.dv);
    if (!opt.dq_opt->count() && (f.q || f.k) && (f.q ? f.q : f.k)->width(H))
        dq = (f.q ? f.q : f.k)->width(H);
    if (!opt.dv_opt->count() && f.v && f.v->width(H)) dv = f.v->width(H);
    const std::size_t dk = opt.dk_opt->count() ? static_cast<std::size_t>(opt.dk) : dq;
    if (dk != dq)
        throw UsageError(
            fmt::format("--dk: {} differs from d_q = {}; the scores Q K^T need d_k = d_q", dk, dq));
    if (f.q) check_projection("--wq", opt.wq, *f.q, H, d_in, dq, "d_q");
    if (f.k) check_projection("--wk", opt.wk, *f.k, H, d_in, dk, "d_k");
    if (f.v) check_projection("--wv", opt.wv, *f.v, H, d_in, dv, "d_v");
    std::size_t d_out = H * dv;
    if (f.o) {
        const auto& sh = f.o->a.shape;
        if (sh.size() != 2 || sh[0] != H * dv || sh[1] == 0)
            throw UsageError(
                fmt::format("--wo: {} has shape {}; W_o needs {} rows (heads x d_v) and "
                            "any number of columns",
                            opt.wo, shape_string(sh), H * dv));
        d_out = sh[1];
    }
    return {H, d_in, dq, dk, dv, d_out, opt.out_proj || f.o.has_value()};
}

template <class T>
Parameters<T> make_parameters(const AttendOptions& opt, const ProjectionFiles& f, const Dims& dims,
                              TorchGenerator& gen) {
    if (opt.bias && (f.q || f.k || f.v || f.o))
        throw UsageError(fmt::format(
            "--bias: draws every projection with its bias; it cannot be combined with {}",
            f.q   ? "--wq"
            : f.k ? "--wk"
            : f.v ? "--wv"
                  : "--wo"));
    // The drawn matrices (float32, then T) are asked of the memory budget before drawing.
    std::uint64_t weights = runtime::checked_product(
        {dims.heads, dims.d_in, dims.dq + dims.dk + dims.dv, 4 + sizeof(T)}, "--heads/--dq/--dv");
    if (dims.out_proj)
        weights += runtime::checked_product({dims.heads * dims.dv, dims.d_out, 4 + sizeof(T)},
                                            "--heads/--dv");
    runtime::reserve(weights, "the weight matrices W_q, W_k, W_v, W_o");
    WeightDraws draws;
    draws.heads = dims.heads, draws.d_in = dims.d_in, draws.bias = opt.bias;
    draws.d_query = dims.dq, draws.d_key = dims.dk, draws.d_value = dims.dv;
    if (dims.out_proj) draws.d_out = dims.d_out;
    draws.query = !f.q, draws.key = !f.k, draws.value = !f.v, draws.out = !f.o;
    const DrawnWeights w = draw_attention_weights(gen, opt.seed, draws, opt.init);

    Parameters<T> par;
    const std::size_t H = dims.heads;
    // head h's block of a file (heads: H, or 1 for W_o's whole matrix), else the draw, in T
    const auto take = [](const std::optional<ProjectionFile>& file,
                         const std::optional<xt::xtensor<float, 2>>& drawn, std::size_t h,
                         std::size_t heads) {
        return file ? head_block<T>(*file, h, heads) : xt::xtensor<T, 2>(xt::cast<T>(*drawn));
    };
    const auto bias = [](const std::optional<xt::xtensor<float, 1>>& b) {
        return b ? std::optional(xt::xtensor<T, 1>(xt::cast<T>(*b))) : std::nullopt;
    };
    for (std::size_t h = 0; h < H; ++h) {
        par.query.push_back(take(f.q, w.query[h], h, H));
        par.key.push_back(take(f.k, w.key[h], h, H));
        par.value.push_back(take(f.v, w.value[h], h, H));
        par.b_query.push_back(bias(w.b_query[h]));
        par.b_key.push_back(bias(w.b_key[h]));
        par.b_value.push_back(bias(w.b_value[h]));
    }
    if (dims.out_proj) par.w_out = take(f.o, w.out, 0, 1);
    par.b_out = bias(w.b_out);
    return par;
}

template <class T>
LayerWeights<T> layer_weights(const Parameters<T>& par) {
    const auto projection = [](const xt::xtensor<T, 2>& w,
                               const std::optional<xt::xtensor<T, 1>>& b) {
        return Projection<T>{{w.data(), w.shape(0), w.shape(1), w.shape(1)},
                             WeightLayout::in_out,
                             b ? b->data() : nullptr};
    };
    LayerWeights<T> out;
    for (std::size_t h = 0; h < par.query.size(); ++h) {
        out.query.push_back(projection(par.query[h], par.b_query[h]));
        out.key.push_back(projection(par.key[h], par.b_key[h]));
        out.value.push_back(projection(par.value[h], par.b_value[h]));
    }
    if (par.w_out) out.output = projection(*par.w_out, par.b_out);
    return out;
}

template LayerWeights<float> layer_weights<float>(const Parameters<float>&);
template LayerWeights<double> layer_weights<double>(const Parameters<double>&);
template Parameters<float> make_parameters<float>(const AttendOptions&, const ProjectionFiles&,
                                                  const Dims&, TorchGenerator&);
template Parameters<double> make_parameters<double>(const AttendOptions&, const ProjectionFiles&,
                                                    const Dims&, TorchGenerator&);

}  // namespace attn::cli
