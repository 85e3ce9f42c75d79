from core.ui.views import overview

overview.render()
