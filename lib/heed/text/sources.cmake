list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/unicode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe_learner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vocab.cpp)
