import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# the notebook the browser tests open is data, not a tutorial to check with nbval
collect_ignore_glob = ["browser/data/*"]
