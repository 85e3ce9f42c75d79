from core.ui.views import review

review.render()
