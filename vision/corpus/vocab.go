package corpus

// The words screens are made of. Each list's entries are distinct, so that an element's text is
// unique on its screen.

var settingsLabels = []string{
	"Network and internet", "Bluetooth devices", "Display brightness", "Sound and vibration",
	"Battery saver", "Storage usage", "Privacy controls", "Location services", "Security updates",
	"Accounts", "System language", "About phone", "Notifications", "Connected devices",
	"Wallpaper and style", "Accessibility", "Digital wellbeing", "Google services",
	"Apps", "Emergency alerts", "Passwords", "Date and time", "Backup", "Keyboard",
	"Mobile data", "Hotspot and tethering", "Airplane mode", "Screen timeout", "Dark theme",
	"Night light", "Font size", "Do not disturb", "Ringtone", "Gestures", "Developer options",
}

var settingsValues = []string{
	"Connected", "Off", "On", "Automatic", "Ring", "82%", "64 GB", "3", "2026", "English",
	"Pixel", "Never", "5 minutes", "Always", "Home", "Vibrate", "12%", "Medium", "7",
	"Default", "Paused", "None", "Sync", "Wi-Fi", "4G",
}

var appNames = []string{
	"Camera", "Photos", "Maps", "Clock", "Calendar", "Weather", "Music", "Files", "Contacts",
	"Phone", "Messages", "Chrome", "Gmail", "Notes", "Calculator", "Recorder", "Podcasts",
	"Wallet", "Health", "Fitness", "Books", "News", "Translate", "Drive", "Keep", "Slack",
	"Spotify", "Netflix", "Uber", "Signal", "Zoom", "Twitch", "Reddit", "Discord", "Amazon",
	"Play Store", "Google TV", "Tasks",
}

var chatNames = []string{
	"Alice Martin", "Bob Chen", "Carla Diaz", "David Kim", "Emma Stone", "Farid Haddad",
	"Grace Liu", "Hugo Weber", "Ines Costa", "Jonas Berg", "Kenji Sato", "Lena Novak",
	"Marco Rossi", "Nadia Ali", "Oscar Lind", "Priya Nair", "Quentin Roy", "Rosa Perez",
	"Sam Taylor", "Tara Walsh",
}

var chatMessages = []string{
	"See you at noon", "Can you send the report", "Thanks for the photos", "Running late today",
	"The build is green again", "Lunch on Friday", "Call me when you land", "Meeting moved to three",
	"Great job on the demo", "Where are the keys", "Happy birthday", "The tickets are booked",
	"Did you see the game", "Almost there", "Let me check first", "Sounds good to me",
}

var chatTimes = []string{"09:12", "10:24", "11:05", "12:40", "Yesterday", "Monday", "Friday", "08:30", "16:55", "Sunday"}

// forms are the form screens: a title, fields (label and placeholder), a check box, buttons
// and a link; every text unique within its form.
var forms = []struct {
	title   string
	fields  [][2]string // label, placeholder
	check   string
	primary string
	second  string
	link    string
	footer  string
}{
	{"Welcome back", [][2]string{{"Email", "Your email address"}, {"Password", "At least eight characters"}},
		"Remember me", "Sign in", "Create account", "Forgot password", "By continuing you accept the Terms"},
	{"Create your account", [][2]string{{"Name", "First and last name"}, {"Email", "Work email"}, {"Password", "Choose a password"}},
		"Send me updates", "Sign up", "Cancel", "Already registered", "We never share your data"},
	{"Payment details", [][2]string{{"Card number", "Sixteen digits"}, {"Name on card", "As printed"}, {"Expiry", "Month and year"}},
		"Save this card", "Pay now", "Back", "Use another method", "Payments are encrypted"},
	{"Shipping address", [][2]string{{"Street", "Street and number"}, {"City", "Your city"}, {"Postcode", "Postal code"}, {"Country", "Select country"}},
		"Same for billing", "Continue", "Edit cart", "Add a note", "Delivery in three days"},
}

// Chinese screens: settings labels and values, app names.
var zhSettingsLabels = []string{
	"无线网络", "蓝牙设备", "显示亮度", "声音和振动", "电池", "存储空间", "关于手机", "通知",
	"隐私", "位置信息", "安全", "账户", "系统语言", "应用管理", "壁纸", "辅助功能", "日期和时间",
	"移动网络", "飞行模式", "个人热点", "锁屏密码", "指纹", "备份", "更新",
}

var zhSettingsValues = []string{"已连接", "关闭", "开启", "自动", "响铃", "简体中文", "标准", "从不", "默认"}

var zhAppNames = []string{
	"相机", "相册", "地图", "时钟", "日历", "天气", "音乐", "文件", "联系人", "电话", "短信",
	"浏览器", "邮件", "备忘录", "计算器", "录音机", "钱包", "健康", "阅读", "新闻", "翻译",
	"视频", "商城", "设置",
}
