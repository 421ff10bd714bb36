from services.analysis.service import build
from services.platform.service import main

main("analysis", build)
