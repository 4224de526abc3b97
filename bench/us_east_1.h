#pragma once
// The us-east-1 catalog from data/aws, loaded once, for the benchmarks that run on the real region (their target
// defines SCALEWRIGHT_SOURCE_DIR). A catalog that does not load ends the program with why.
#include <cstdlib>
#include <iostream>
#include <string>

#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"

namespace scalewright::bench {

inline const cloud::Catalog& us_east_1() {
  static const cloud::Catalog catalog = [] {
    Result<cloud::Catalog> loaded = cloud::aws::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
    if (!loaded) {
      std::cerr << "loading data/aws: " << loaded.error().message << "\n";
      std::exit(1);
    }
    return std::move(loaded).value();
  }();
  return catalog;
}

}  // namespace scalewright::bench
