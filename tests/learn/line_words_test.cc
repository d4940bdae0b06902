#include "learn/line_words.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

TEST(LineWords, NumbersAndAddressesBecomePlaceholders) {
  EXPECT_EQ(LineWords("NCCL WARN Connect to 10.0.0.3<4242> failed"), "nccl warn connect to ipaddr 0 failed");
  EXPECT_EQ(LineWords("GPU at 0000:b3:00.0 lost"), "gpu at pciaddr lost");
  EXPECT_EQ(LineWords("comm 0x7f1928e6e060 rank 3"), "comm hex rank 0");
  EXPECT_EQ(LineWords("cannot open /usr/lib/libnccl.so.2"), "cannot open path");
  EXPECT_EQ(LineWords("version 2.19.3"), "version 0 0 0");
}

TEST(LineWords, CamelCaseIsSplitAndLowered) {
  EXPECT_EQ(LineWords("ProcessGroupNCCL.cpp:1501 getRank"), "process group nccl cpp 0 get rank");
  EXPECT_EQ(LineWords("CUDA_ERROR_ILLEGAL_ADDRESS"), "cuda_error_illegal_address");
}

TEST(LineWords, SeparatorsGoOtherMarksStay) {
  EXPECT_EQ(LineWords("[E] (rank=3): failed!"), "e rank 0 failed !");
  EXPECT_EQ(LineWords(" ,.;:()[]{}<>'\"`=|- "), "");
  EXPECT_EQ(LineWords(""), "");
}

TEST(LineWords, AnyBytesAreSafe) {
  EXPECT_EQ(LineWords("\x1b[31mERROR\x1b[0m link down"), "error link down");
  EXPECT_EQ(LineWords("caf\xc3\xa9 down\x01"), "caf down");
  EXPECT_EQ(LineWords(std::string_view("a\0b", 3)), "a b");
  EXPECT_EQ(LineWords("\x1b"), "");
  EXPECT_EQ(LineWords("\x1b["), "");
  EXPECT_EQ(LineWords("0x"), "0 x");
  EXPECT_EQ(LineWords("/"), "/");
  EXPECT_EQ(LineWords("1.2.3."), "0 0 0");
}

}  // namespace
}  // namespace aegis
