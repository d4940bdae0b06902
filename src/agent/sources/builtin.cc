#include "agent/sources/builtin.h"

namespace aegis::agent {

const SourceRegistry& SourceRegistry::Builtin() {
  static const SourceRegistry registry = [] {
    SourceRegistry r;
    RegisterKmsgSource(&r);
    RegisterJournaldSource(&r);
    RegisterLogFileSources(&r);
    RegisterCclSource(&r);
    RegisterNodeSamplerSource(&r);
    RegisterFactsSource(&r);
    return r;
  }();
  return registry;
}

}  // namespace aegis::agent
