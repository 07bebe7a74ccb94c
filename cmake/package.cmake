# The Debian package (CPack DEB): `make package` at the top, or
# `cpack -G DEB` in a build folder. It holds the programs (/usr/bin), the
# systemd unit (/lib/systemd/system/cuzk.service), the example configuration
# as /etc/cuzk/cuzk.toml (a conffile: an operator's edits survive upgrades),
# and README; postinst creates the cuzk system user the unit runs as.
# Dependencies come from dpkg-shlibdeps (dpkg-dev) over the binaries.
install(TARGETS cuzk cuzk-bench RUNTIME DESTINATION bin)
if(TARGET cuzk-daemon)
  install(TARGETS cuzk-daemon RUNTIME DESTINATION bin)
  install(FILES contrib/systemd/cuzk.service DESTINATION /lib/systemd/system)
  install(FILES cuzk.example.toml DESTINATION /etc/cuzk RENAME cuzk.toml)
endif()
install(FILES README.md cuzk.example.toml DESTINATION share/doc/cuzk)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cuzk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cuzk maintainers <cuzk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU-resident Groth16 proving engine for Filecoin (PoSt, PoRep C2, SnapDeals)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
if(TARGET cuzk-daemon)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
      "${CMAKE_SOURCE_DIR}/contrib/debian/postinst;${CMAKE_SOURCE_DIR}/contrib/debian/prerm;${CMAKE_SOURCE_DIR}/contrib/debian/postrm;${CMAKE_SOURCE_DIR}/contrib/debian/conffiles")
endif()
set(CPACK_WARN_ON_ABSOLUTE_INSTALL_DESTINATION OFF)
include(CPack)
