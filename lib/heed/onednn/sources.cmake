list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lstm_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_peak.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pack_bf16.cpp
  ${CMAKE_CURRENT_LIST_DIR}/padded_rnn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rnn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax.cpp)

