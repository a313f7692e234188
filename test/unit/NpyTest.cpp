// Unit tests of the .npy reader and writer used by the launchers.
#include "Npy.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace pallas_rt;

/// A fresh temporary file name (the file exists, empty).
static std::string tempPath() {
  char name[] = "/tmp/pallas-npy-XXXXXX";
  int fd = mkstemp(name);
  if (fd >= 0)
    close(fd);
  return name;
}

TEST_CASE(".npy arrays round-trip") {
  std::string path = tempPath();
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {7}, {2, 3, 4}}) {
    NpyArray a;
    a.descr = "<f4";
    a.shape = shape;
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    for (int64_t i = 0; i < n * 4; ++i)
      a.data.push_back(uint8_t(i * 7));
    std::string error;
    REQUIRE(writeNpy(path, a, error));
    NpyArray b;
    REQUIRE(readNpy(path, b, error));
    CHECK(b.descr == "<f4");
    CHECK(b.shape == shape);
    CHECK(b.data == a.data);
  }
  std::remove(path.c_str());
}

TEST_CASE("broken .npy files are reported, not trusted") {
  std::string path = tempPath();
  std::string error;
  {
    std::ofstream os(path, std::ios::binary);
    os << "not numpy at all";
  }
  NpyArray a;
  CHECK(!readNpy(path, a, error));
  CHECK(error.find("magic") != std::string::npos);
  NpyArray ok;
  ok.descr = "<i4";
  ok.shape = {4};
  ok.data.resize(12); // one element short
  REQUIRE(writeNpy(path, ok, error));
  CHECK(!readNpy(path, a, error));
  CHECK(error.find("data bytes") != std::string::npos);
  CHECK(!readNpy("/nonexistent/x.npy", a, error));
  std::remove(path.c_str());
}

TEST_CASE("dtype descriptors") {
  CHECK(npyDescrFor("bf16") == "<u2");
  CHECK(npyDescrFor("i1") == "|b1");
  CHECK(dtypeSize("f64") == 8);
  CHECK(npyDescrFor("f7").empty());
}
