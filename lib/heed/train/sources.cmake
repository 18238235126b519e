list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/adam.cpp
  ${CMAKE_CURRENT_LIST_DIR}/batcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe_dropout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/corpus.cpp
  ${CMAKE_CURRENT_LIST_DIR}/curves.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_dir.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lr_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/moving_average.cpp
  ${CMAKE_CURRENT_LIST_DIR}/optimizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sgd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/signals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trainer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/update.cpp
  ${CMAKE_CURRENT_LIST_DIR}/validator.cpp)
# One process per run, or MPI's world (HEED_MPI, lib/CMakeLists.txt).
if(HEED_WITH_MPI)
  list(APPEND HEED_CORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/communicator_mpi.cpp)
else()
  list(APPEND HEED_CORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp)
endif()
# The optimizer's square roots vectorise only without errno (adam.cpp).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/adam.cpp PROPERTIES COMPILE_OPTIONS -fno-math-errno)
