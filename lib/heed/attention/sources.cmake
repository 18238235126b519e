# Attention mechanisms: one file each, registered by name (docs/attention.md "Adding a
# mechanism"). A new mechanism is a new <file>.cpp defining register_<file>() and its name here.
set(HEED_ATTENTION_MECHANISMS none dot scaled_dot general additive
  location cosine scaled_general normed_additive
  coverage ff_pool
  local_m local_p
  linear multi_head)

set(_heed_attention_inc "")
foreach(mechanism ${HEED_ATTENTION_MECHANISMS})
  list(APPEND HEED_CORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${mechanism}.cpp)
  string(APPEND _heed_attention_inc "HEED_ATTENTION(${mechanism})\n")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/heed/attention/builtin_mechanisms.inc
     CONTENT "${_heed_attention_inc}")
list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/additive_scores.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/feed_forward_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/local_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/normalization.cpp
  ${CMAKE_CURRENT_LIST_DIR}/options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_rows.cpp)

# The vectorised kernels (additive scores, softmax rows) let a*b + c become one FMA (-std=c++17
# turns that off). Their OpenMP loops need no flag of their own: every heed_core file is compiled
# with OpenMP (lib/CMakeLists.txt).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/additive_scores.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_rows.cpp PROPERTIES
  COMPILE_OPTIONS -ffp-contract=fast)
