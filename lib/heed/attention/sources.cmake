# Attention mechanisms: one file each (see docs/attention.md "Adding a mechanism").
list(APPEND HEED_CORE_SOURCES)
