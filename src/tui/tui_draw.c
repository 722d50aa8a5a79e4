#include "tui_draw.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static SCREEN *screen;
static attr_t role_attr[TUI_ROLE_COUNT];

enum { PAIR_LOW = 1, PAIR_MID, PAIR_HIGH, PAIR_HEADER, PAIR_POOL, PAIR_TITLE };

static void pick_attrs(bool colour)
{
	/* Without colour the levels still differ: the bar length carries the
	 * figure, bold marks what is nearly full. */
	role_attr[TUI_ROLE_NORMAL] = A_NORMAL;
	role_attr[TUI_ROLE_TITLE] = A_BOLD;
	role_attr[TUI_ROLE_HEADER] = A_REVERSE;
	role_attr[TUI_ROLE_LOW] = A_NORMAL;
	role_attr[TUI_ROLE_MID] = A_NORMAL;
	role_attr[TUI_ROLE_HIGH] = A_BOLD;
	role_attr[TUI_ROLE_DIM] = A_DIM;
	role_attr[TUI_ROLE_POOL] = A_BOLD | A_UNDERLINE;
	role_attr[TUI_ROLE_ERROR] = A_BOLD;
	role_attr[TUI_ROLE_STATUS] = A_REVERSE;
	if (!colour)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_LOW, COLOR_GREEN, -1);
	init_pair(PAIR_MID, COLOR_YELLOW, -1);
	init_pair(PAIR_HIGH, COLOR_RED, -1);
	init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_POOL, COLOR_CYAN, -1);
	init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
	role_attr[TUI_ROLE_TITLE] = COLOR_PAIR(PAIR_TITLE) | A_BOLD;
	role_attr[TUI_ROLE_HEADER] = COLOR_PAIR(PAIR_HEADER);
	role_attr[TUI_ROLE_LOW] = COLOR_PAIR(PAIR_LOW);
	role_attr[TUI_ROLE_MID] = COLOR_PAIR(PAIR_MID);
	role_attr[TUI_ROLE_HIGH] = COLOR_PAIR(PAIR_HIGH) | A_BOLD;
	role_attr[TUI_ROLE_POOL] = COLOR_PAIR(PAIR_POOL) | A_BOLD;
	role_attr[TUI_ROLE_ERROR] = COLOR_PAIR(PAIR_HIGH) | A_BOLD | A_REVERSE;
}

int tui_draw_start(struct kerr *err)
{
	const char *no_color = getenv("NO_COLOR");

	if (screen)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return kerr_set(err, KERR_OTHER, "the live view needs a terminal on stdin and stdout");
	/* newterm, unlike initscr, reports an unusable terminal instead of exiting */
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return kerr_set(err, KERR_OTHER, "cannot drive terminal type \"%s\"",
				getenv("TERM") ? getenv("TERM") : "");
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	pick_attrs(has_colors() && !(no_color && *no_color));
	return 0;
}

void tui_draw_stop(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
}

bool tui_draw_active(void)
{
	return screen != NULL;
}

void tui_draw_size(int *cols, int *lines)
{
	int y = 0, x = 0;

	if (screen)
		getmaxyx(stdscr, y, x);
	*cols = x;
	*lines = y;
}

static int map_key(int ch)
{
	switch (ch) {
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_ENTER: case '\n': case '\r': return TUI_KEY_ENTER;
	case KEY_BACKSPACE: case 127: case 8: return TUI_KEY_BACKSPACE;
	case 27: return TUI_KEY_ESC;
	case 3: return TUI_KEY_INTERRUPT;
	default: return ch >= ' ' && ch <= '~' ? ch : TUI_KEY_NONE;
	}
}

bool tui_draw_read(struct tui_event *ev)
{
	int ch;

	if (!screen)
		return false;
	ch = getch();
	if (ch == ERR)
		return false;
	memset(ev, 0, sizeof(*ev));
	if (ch == KEY_RESIZE) {
		ev->type = TUI_EV_RESIZE;
		tui_draw_size(&ev->cols, &ev->lines);
		return true;
	}
	ev->type = TUI_EV_KEY;
	ev->key = map_key(ch);
	return true;
}

void tui_draw_screen(const struct tui_screen *scr)
{
	if (!screen)
		return;
	erase();
	for (int y = 0; y < scr->lines && scr->line; y++) {
		const struct tui_line *l = &scr->line[y];
		attr_t extra = l->selected ? A_REVERSE : A_NORMAL;

		if (l->fill != TUI_ROLE_NORMAL || l->selected) {
			attrset(role_attr[l->fill] | extra);
			mvhline(y, 0, ' ', scr->cols);
		}
		for (size_t i = 0; i < l->nspans; i++) {
			const struct tui_span *sp = &l->spans[i];

			attrset(role_attr[sp->role] | extra);
			/* the layout clipped it to the screen, in columns */
			mvaddstr(y, sp->x, sp->text);
		}
	}
	attrset(A_NORMAL);
	if (scr->cursor_y >= 0) {
		curs_set(1);
		move(scr->cursor_y, scr->cursor_x);
	} else {
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	doupdate();
}
