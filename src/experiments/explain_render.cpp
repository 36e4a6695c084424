// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: the diagrams as terminal text (one unit, or two side by
// side) and as SVG.
#include <algorithm>
#include <sstream>
#include <utility>

#include "experiments/explain.h"
#include "experiments/explain_kit.h"

namespace mmaemu::experiments {
namespace {

using explain_detail::pad;

std::string heading(const Explanation& x) {
  return x.model + " " + x.row->instr + ", " + info(x.row->in).name + " -> " + info(x.row->out).name + ", k = " +
         std::to_string(x.k);
}

// The lines of stage i of x ("" past its end), its title first.
std::vector<std::string> stage_lines(const Explanation& x, std::size_t i) {
  if (i >= x.stages.size()) return {};
  std::vector<std::string> v{std::string("[").append(std::to_string(i + 1)).append("] ").append(x.stages[i].title)};
  v.insert(v.end(), x.stages[i].lines.begin(), x.stages[i].lines.end());
  return v;
}

// Every line of the two explanations, paired, with a marker line at the
// first stage where they part.
struct Pairs {
  std::vector<std::pair<std::string, std::string>> rows;
  std::vector<bool> marked;
};

Pairs pair_up(const Explanation& x, const Explanation* y) {
  Pairs p;
  const int part = y ? first_parting(x, *y) : -1;
  const std::size_t n = std::max(x.stages.size(), y ? y->stages.size() : 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<std::string> l = stage_lines(x, i), r = y ? stage_lines(*y, i) : std::vector<std::string>{};
    for (std::size_t j = 0; j < std::max(l.size(), r.size()); ++j) {
      p.rows.emplace_back(j < l.size() ? l[j] : "", j < r.size() ? r[j] : "");
      p.marked.push_back(static_cast<int>(i) == part && j == 0);
    }
  }
  return p;
}

const char* const kMark = ">> the bits part here";

}  // namespace

std::string render_text(const Explanation& x) {
  std::ostringstream o;
  o << "explain: " << heading(x) << "\n";
  for (std::size_t i = 0; i < x.stages.size(); ++i)
    for (const std::string& l : stage_lines(x, i)) o << l << "\n";
  return o.str();
}

std::string render_text(const Explanation& x, const Explanation& y) {
  const Pairs p = pair_up(x, &y);
  std::size_t w = heading(x).size();
  for (const auto& r : p.rows) w = std::max(w, r.first.size());
  std::ostringstream o;
  o << "explain: " << pad(heading(x), w) << " || " << heading(y) << "\n";
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.marked[i]) o << kMark << "\n";
    o << "         " << pad(p.rows[i].first, w) << " || " << p.rows[i].second << "\n";
  }
  const int part = first_parting(x, y);
  o << (part < 0 ? "the two units hold the same bits at every stage\n"
                 : "first difference: stage [" + std::to_string(part + 1) + "]\n");
  return o.str();
}

std::string render_svg(const Explanation& x, const Explanation* y) {
  const Pairs p = pair_up(x, y);
  std::size_t w = heading(x).size(), w2 = y ? heading(*y).size() : 0;
  for (const auto& r : p.rows) w = std::max(w, r.first.size()), w2 = std::max(w2, r.second.size());
  const double cw = 7.8, lh = 16;
  const double col2 = 20 + (w + 4) * cw;
  auto esc = [](const std::string& s) {
    std::string e;
    for (char ch : s) e += ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '&' ? "&amp;" : std::string(1, ch);
    return e;
  };
  auto text = [&](double xx, double yy, const std::string& s, const char* cls) {
    return "<text x=\"" + std::to_string(xx) + "\" y=\"" + std::to_string(yy) + "\" class=\"" + cls + "\" xml:space=\"preserve\">" +
           esc(s) + "</text>\n";
  };
  std::ostringstream o;
  const double height = (p.rows.size() + 4) * lh, width = y ? col2 + (w2 + 2) * cw : col2;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"monospace\" font-size=\"13\">\n<style>.h{font-weight:bold}.t{fill:#1a4e8a}.l{fill:#222}"
       ".m{fill:#c00000;font-weight:bold}</style>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << text(10, lh, heading(x), "h");
  if (y) o << text(col2, lh, heading(*y), "h");
  double yy = 2.5 * lh;
  for (std::size_t i = 0; i < p.rows.size(); ++i, yy += lh) {
    const bool title = !p.rows[i].first.empty() && p.rows[i].first[0] == '[';
    if (p.marked[i]) {
      o << "<rect x=\"4\" y=\"" << yy - lh + 3 << "\" width=\"" << width - 8 << "\" height=\"" << lh
        << "\" fill=\"#ffe0e0\"/>\n";
      o << text(width - 24 * cw, yy, kMark, "m");
    }
    o << text(10, yy, p.rows[i].first, title ? "t" : "l");
    if (y) o << text(col2, yy, p.rows[i].second, title || (!p.rows[i].second.empty() && p.rows[i].second[0] == '[') ? "t" : "l");
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace mmaemu::experiments
