"""The aks-dra-vgpu plugin's entry point (PulumiPlugin.yaml `main`): serves the components to every Pulumi language."""

import sys
from pathlib import Path

# The engine runs the plugin from a checkout of this repository, with the consumer's folder as working directory:
# import the package from the checkout it came with, not from whatever else the environment may hold.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from components.provider_host import main  # after the path above

if __name__ == "__main__":
    main()
