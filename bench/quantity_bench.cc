// Micro benchmarks for berth::shim::Quantity: parsing and canonical printing are on the hot path
// of every pod admission in kubesim and every resource comparison in the controllers.
#include <benchmark/benchmark.h>

#include <string_view>

#include "clientgo-shim/api/quantity.h"

namespace {

constexpr std::string_view kInputs[] = {"500m", "1Gi", "1.5", "2e3", "100Ki", "0.5Gi", "1536Mi",
                                        "250m", "4", "128974848"};

void BM_ParseQuantity(benchmark::State& state) {
  size_t i = 0;
  for (auto _ : state) {
    auto q = berth::shim::Quantity::Parse(kInputs[i++ % std::size(kInputs)]);
    benchmark::DoNotOptimize(q);
  }
}
BENCHMARK(BM_ParseQuantity);

void BM_QuantityString(benchmark::State& state) {
  std::vector<berth::shim::Quantity> quantities;
  for (std::string_view in : kInputs) {
    auto q = berth::shim::Quantity::Parse(in);
    q->Add(berth::shim::Quantity());  // drop the remembered input: measure canonicalisation
    quantities.push_back(*q);
  }
  size_t i = 0;
  for (auto _ : state) {
    std::string s = quantities[i++ % quantities.size()].String();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_QuantityString);

}  // namespace
