from core.ui.views import impact

impact.render()
