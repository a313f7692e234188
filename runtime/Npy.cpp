//===- Npy.cpp - NumPy .npy arrays ----------------------------------------===//
#include "Npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace pallas_rt {

std::string npyDescrFor(const std::string &dtype) {
  static const char *const table[][2] = {
      {"f64", "<f8"}, {"f32", "<f4"}, {"f16", "<f2"}, {"bf16", "<u2"},
      {"f8E4M3FN", "|u1"}, {"f8E5M2", "|u1"}, {"i1", "|b1"}, {"i8", "|i1"},
      {"i16", "<i2"}, {"i32", "<i4"}, {"i64", "<i8"}};
  for (auto &row : table)
    if (dtype == row[0])
      return row[1];
  return "";
}

int64_t dtypeSize(const std::string &dtype) {
  std::string d = npyDescrFor(dtype);
  return d.empty() ? 0 : d[2] - '0';
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The value of `key` in the header dict, as raw text.
static bool headerField(const std::string &header, const std::string &key,
                        std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return false;
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return false;
  size_t end;
  if (header[start] == '(')
    end = header.find(')', start) + 1;
  else if (header[start] == '\'')
    end = header.find('\'', start + 1) + 1;
  else
    end = header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0)
    return false;
  value = header.substr(start, end - start);
  return true;
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) {
    error = "'" + path + "' is not a valid .npy file: " + why;
    return false;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return fail("missing the \\x93NUMPY magic");
  uint8_t major = bytes[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return fail("unsupported version " + std::to_string(major));
  }
  if (offset + headerLen > bytes.size())
    return fail("truncated header");
  std::string header = bytes.substr(offset, headerLen);
  std::string descr, order, shape;
  if (!headerField(header, "descr", descr) ||
      !headerField(header, "fortran_order", order) ||
      !headerField(header, "shape", shape))
    return fail("header lacks descr, fortran_order or shape");
  if (order != "False")
    return fail("Fortran-ordered arrays are not supported");
  if (descr.size() < 2)
    return fail("bad descr");
  out.descr = descr.substr(1, descr.size() - 2);
  out.shape.clear();
  int64_t count = 1;
  std::string dims = shape.substr(1, shape.size() - 2);
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t a = item.find_first_not_of(' ');
    if (a == std::string::npos)
      continue;
    char *end = nullptr;
    long long d = std::strtoll(item.c_str() + a, &end, 10);
    if (d < 0 || (end && *end && *end != ' ' && *end != 'L'))
      return fail("bad shape " + shape);
    out.shape.push_back(d);
    if (d && count > (int64_t(1) << 40) / d)
      return fail("array too large");
    count *= d;
  }
  int64_t elementSize = out.descr.size() >= 3 ? out.descr[2] - '0' : 0;
  if (elementSize <= 0 || elementSize > 8)
    return fail("unsupported descr '" + out.descr + "'");
  size_t dataStart = offset + headerLen;
  size_t need = size_t(count) * size_t(elementSize);
  if (bytes.size() - dataStart != need)
    return fail("holds " + std::to_string(bytes.size() - dataStart) +
                " data bytes, its header promises " + std::to_string(need));
  out.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape[i]);
  shape += array.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + array.descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream os(path, std::ios::binary);
  if (!os) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  os.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {char(header.size() & 0xff), char(header.size() >> 8)};
  os.write(len, 2);
  os << header;
  os.write(reinterpret_cast<const char *>(array.data.data()), array.data.size());
  if (!os) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace pallas_rt
