"""DocsChisel Studio: field-level diagnosis and optimization of tool documentation.

Importing the package must never touch the network: litellm is told to use its
bundled cost map before anything imports it.
"""

import os as _os

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
_os.environ.setdefault("HF_HUB_OFFLINE", "1")
_os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")

__version__ = "0.1.0"
