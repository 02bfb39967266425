/* chart.c: the bar charts libxlsxwriter draws beside the tables they read
 * (internal.h).  A chart reads its table's cells by reference, so what it
 * shows is what the table holds; it shows at most CHART_MAXBARS rows (the
 * first ones: each table it draws is sorted largest first). */
#include "report/internal.h"

#define CHART_MAXBARS 25
#define CHART_ROW_PX 20       /* height of one bar's band, in pixels */
#define CHART_MIN_PX 240

void
chart_bars(Writer *w, Sheet *s, const char *title, uint32_t first, uint32_t last,
           int cat, const int *vals, int nval, int at)
{
	lxw_chart *ch;
	lxw_chart_options opt = {0};
	lxw_chart_font font = {0};
	uint32_t n;

	if (last < first)
		return;           /* nothing to draw */
	if (last - first >= CHART_MAXBARS)
		last = first + CHART_MAXBARS - 1;
	n = last - first + 1;
	if (!(ch = XL(workbook_add_chart)(w->wb, nval > 1 ? LXW_CHART_BAR_STACKED : LXW_CHART_BAR))) {
		note(w, LXW_ERROR_MEMORY_MALLOC_FAILED);
		return;
	}
	for (int v = 0; v < nval; v++) {
		lxw_chart_series *se = XL(chart_add_series)(ch, NULL, NULL);
		lxw_col_t c = (lxw_col_t)(s->col0 + vals[v]);
		if (!se) {
			note(w, LXW_ERROR_MEMORY_MALLOC_FAILED);
			return;
		}
		XL(chart_series_set_categories)(se, s->name, first, (lxw_col_t)(s->col0 + cat), last,
		                            (lxw_col_t)(s->col0 + cat));
		XL(chart_series_set_values)(se, s->name, first, c, last, c);
		XL(chart_series_set_name_range)(se, s->name, 0, c);
	}
	XL(chart_title_set_name)(ch, title);
	font.size = 11;
	font.bold = LXW_EXPLICIT_FALSE;
	XL(chart_title_set_name_font)(ch, &font);
	/* a bar chart's categories run up its vertical axis (libxlsxwriter's
	 * y_axis here): reversed, the first row is on top */
	XL(chart_axis_set_reverse)(ch->y_axis);
	XL(chart_axis_set_num_format)(ch->x_axis, "#,##0");
	XL(chart_axis_major_gridlines_set_visible)(ch->x_axis, LXW_TRUE);
	if (nval > 1)
		XL(chart_legend_set_position)(ch, LXW_CHART_LEGEND_TOP);
	else
		XL(chart_legend_set_position)(ch, LXW_CHART_LEGEND_NONE);
	opt.x_offset = 8;
	opt.y_scale = (double)(n * CHART_ROW_PX + 90 > CHART_MIN_PX ? n * CHART_ROW_PX + 90
	                       : CHART_MIN_PX) / 288.0;   /* libxlsxwriter's default is 288 px */
	opt.x_scale = 1.25;
	note(w, XL(worksheet_insert_chart_opt)(s->ws, 1, (lxw_col_t)(s->col0 + at), ch, &opt));
}
