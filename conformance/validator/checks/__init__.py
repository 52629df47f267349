"""The trace checks, one module per theme; each module registers its checks on import (judgement.check)."""
