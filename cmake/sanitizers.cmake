# HEED_SANITIZE="address;undefined" adds -fsanitize=... to every target.
if(HEED_SANITIZE)
  string(REPLACE ";" "," _heed_san "${HEED_SANITIZE}")
  add_compile_options(-fsanitize=${_heed_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_heed_san})
endif()
