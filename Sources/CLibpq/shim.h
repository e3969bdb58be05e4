// libpq, PostgreSQL's C client (Debian `libpq-dev`, headers in /usr/include/postgresql).
#ifndef TANDEM_CLIBPQ_SHIM_H
#define TANDEM_CLIBPQ_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
