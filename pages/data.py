from core.ui.views import data

data.render()
