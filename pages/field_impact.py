from core.ui.views import impact, retrieval

impact.render()
retrieval.render(section=True)
