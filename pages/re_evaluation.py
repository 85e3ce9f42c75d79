from core.ui.views import jobs

jobs.render()
